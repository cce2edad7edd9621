import BlueDotCore
import FoundationEssentials
import Glibc

/// Writes lines to standard output through one buffer, safe from any thread.
///
/// `flushEachLine` suits live scans (a reader sees each sighting at once); decoding a recording buffers 64 KiB.
/// When the reader goes away (EPIPE, with SIGPIPE ignored) the output is dropped and `onClosed` runs once.
final class LineOutput: Sendable {
    private let buffer = LockedValue<[UInt8]>([])
    private let closed = LockedValue(false)
    private let flushEachLine: Bool
    private let onClosed: @Sendable () -> Void

    init(flushEachLine: Bool, onClosed: @escaping @Sendable () -> Void = {}) {
        self.flushEachLine = flushEachLine
        self.onClosed = onClosed
    }

    /// Appends `line` and a newline.
    func write(_ line: String) {
        write { $0.append(contentsOf: line.utf8) }
    }

    /// Appends what `line` writes into the buffer (UTF-8, no newline) and a newline: a line costs no `String`.
    func write(_ line: (inout [UInt8]) -> Void) {
        buffer.withLock { buffer in
            line(&buffer)
            buffer.append(0x0A)
            if flushEachLine || buffer.count >= 1 << 16 { drain(&buffer) }
        }
    }

    /// Appends `count` lines under one lock, each written by `line(k, &buffer)` and followed by a newline: a
    /// batch of lines from another thread (`decode`'s writer) takes the lock once.
    func writeEach(_ count: Int, _ line: (Int, inout [UInt8]) -> Void) {
        buffer.withLock { buffer in
            for k in 0..<count {
                line(k, &buffer)
                buffer.append(0x0A)
                if flushEachLine || buffer.count >= 1 << 16 { drain(&buffer) }
            }
        }
    }

    /// Writes out whatever is buffered.
    func flush() {
        buffer.withLock { drain(&$0) }
    }

    private func drain(_ buffer: inout [UInt8]) {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !buffer.isEmpty, !closed.withLock({ $0 }) else { return }
        let failed = buffer.withUnsafeBytes { !FileOutput.writeAll(STDOUT_FILENO, $0) }
        if failed {
            closed.withLock { $0 = true }
            onClosed()
        }
    }
}
