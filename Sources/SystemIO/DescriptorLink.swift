#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BlueDotCore
import FoundationEssentials

/// One open file descriptor (socket or tty) read on a dedicated thread, with a wake pipe so `stop()` interrupts
/// a pending read at once, whatever the descriptor.
///
/// The reader thread owns the descriptor's lifetime: when it ends (stop, end of file, error) it closes the
/// descriptor and the pipe under the lock that `write` holds, so no call ever sees a recycled descriptor number.
/// A link that was never started closes them in `stop()`. Reads never run on Swift's cooperative pool.
final class DescriptorLink: Sendable {
    /// How the read loop treats an `errno` from `read(2)`.
    struct Policy: Sendable {
        /// Read errors that mean the peer hung up (a pty whose master closed reports `EIO`): end without error.
        var hangUpErrors: Set<Int32> = []
        /// Whether the descriptor is a socket, so `stop()` may also `shutdown(2)` it.
        var isSocket: Bool = false
        /// The largest read; a raw HCI socket returns one packet per read, so this must hold the largest packet.
        var readSize: Int = 4096
    }

    private struct State {
        var closed = false
        var started = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The transport name used in errors.
    let name: String
    let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let policy: Policy
    private let state = LockedValue(State())

    /// Takes ownership of `descriptor` (closed by this link from now on, even if this initialiser throws).
    init(descriptor: Int32, name: String, policy: Policy) throws(SystemIOError) {
        do throws(SystemError) {
            (wakeRead, wakeWrite) = try System.pipe()
            try System.setNonBlocking(descriptor, true)
        } catch {
            System.close(descriptor)
            throw .system(transport: name, error)
        }
        self.descriptor = descriptor
        self.name = name
        self.policy = policy
    }

    /// Starts the reader thread. `onBytes` gets each chunk read (throwing ends the link with that error);
    /// `onEnd` runs once, after the descriptor is closed, with nil for a stop or a peer close.
    func startReading(onBytes: @escaping @Sendable (ArraySlice<UInt8>) throws -> Void,
                      onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        let alreadyClosed = state.withLock { state in
            state.started = true
            return state.closed
        }
        if alreadyClosed {
            finish()
            onEnd(nil)
            return
        }
        SystemThread.detach(name: "bluedot-read-\(name)") { [self] in
            let failure = readLoop(onBytes)
            finish()
            onEnd(failure)
        }
    }

    private func readLoop(_ onBytes: (ArraySlice<UInt8>) throws -> Void) -> (any Error)? {
        var buffer = [UInt8](repeating: 0, count: policy.readSize)
        while true {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            do throws(SystemError) {
                _ = try System.poll(&fds, timeout: -1)
            } catch {
                return SystemIOError.system(transport: name, error)
            }
            if fds[1].revents != 0 { return nil }
            let events = fds[0].revents
            if events & Int16(POLLNVAL) != 0 {
                return SystemIOError.system(transport: name, SystemError(code: EBADF, call: "poll"))
            }
            if events == 0 { continue }
            do {
                guard let count = try System.read(descriptor, into: &buffer, label: "read") else { continue }
                if count == 0 { return nil }
                try onBytes(buffer[0..<count])
            } catch let error as SystemError {
                return policy.hangUpErrors.contains(error.code) ? nil : SystemIOError.system(transport: name, error)
            } catch {
                return error
            }
        }
    }

    /// Closes the descriptors once and wakes anyone waiting in `waitUntilFinished()`.
    private func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if !state.closed {
                state.closed = true
                System.close(descriptor)
                System.close(wakeRead)
                System.close(wakeWrite)
            }
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Asks the reader to stop; returns at once. Idempotent. A link never started is closed here.
    func stop() {
        let started = state.withLock { state -> Bool in
            if !state.closed && state.started {
                var byte: [UInt8] = [1]
                _ = try? System.write(wakeWrite, byte[...], label: "write(wake pipe)")
                byte.removeAll()
                if policy.isSocket { System.shutdown(descriptor) }
            }
            return state.started
        }
        if !started { finish() }
    }

    /// Waits until the reader thread has ended and the descriptor is closed.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Writes all of `bytes`, waiting for room at most `timeout` in total.
    func write(_ bytes: [UInt8], timeout: Duration) throws(SystemIOError) {
        let deadline = ContinuousClock.now + timeout
        try state.withLock { (state: inout State) throws(SystemIOError) in
            guard !state.closed else { throw .notOpen(transport: name) }
            var sent = 0
            while sent < bytes.count {
                let wrote: Int?
                do throws(SystemError) {
                    wrote = try System.write(descriptor, bytes[sent...], label: "write")
                } catch {
                    throw .system(transport: name, error)
                }
                if let wrote {
                    sent += wrote
                    continue
                }
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw .writeTimedOut(transport: name) }
                var fds = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
                do throws(SystemError) {
                    _ = try System.poll(&fds, timeout: Int32(clamping: left.milliseconds + 1))
                } catch {
                    throw .system(transport: name, error)
                }
            }
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
