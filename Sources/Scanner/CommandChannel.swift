import BlueDotCore
import HCI

/// What the controller answered to one command: the Command Complete or Command Status event that names it.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.14 (Command Complete) and §7.7.15 (Command Status).
enum CommandReply: Sendable, Hashable {
    /// The command finished, with its return parameters (status byte first).
    case complete(CommandCompleteEvent)
    /// The command was accepted for later completion, or refused.
    case status(CommandStatusEvent)

    /// The command this reply is about.
    var opcode: Opcode {
        switch self {
        case let .complete(event): event.opcode
        case let .status(event): event.opcode
        }
    }
}

/// Pairs each command with its reply, one command at a time, under a deadline.
///
/// The session's reader calls `deliver(_:)` with every Command Complete/Status event and `close(reason:)` when
/// the link ends; `request` sends a command and waits for the reply that names its opcode, failing with
/// `ScannerError.commandTimedOut` when none comes in time, `.transportDropped` when the link ends first and
/// `.transportRefused` when the transport refuses the command for good (`HCITransportError.isPermanent`).
final class CommandChannel: Sendable {
    private struct Pending {
        let id: Int
        let opcode: Opcode
        let continuation: CheckedContinuation<CommandReply, any Error>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var nextID = 0
        var pending: Pending?
        var closedReason: String?
    }

    private let state = LockedValue(State())
    private let transportName: String
    private let clock: any BlueDotClock

    /// Creates a channel for the link named `transportName` (used in errors); command deadlines run on `clock`.
    init(transportName: String, clock: any BlueDotClock) {
        self.transportName = transportName
        self.clock = clock
    }

    /// Sends a command with `send` and waits for its reply for at most `timeout`.
    func request(
        opcode: Opcode, name: String, timeout: Duration, send: @escaping @Sendable () async throws -> Void
    ) async throws(ScannerError) -> CommandReply {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let outcome = state.withLock { state -> Result<Int, ScannerError> in
                    if let reason = state.closedReason {
                        return .failure(.transportDropped(transport: transportName, reason: reason))
                    }
                    state.nextID += 1
                    state.pending = Pending(id: state.nextID, opcode: opcode, continuation: continuation)
                    return .success(state.nextID)
                }
                let id: Int
                switch outcome {
                case let .failure(error):
                    continuation.resume(throwing: error)
                    return
                case let .success(value):
                    id = value
                }
                let timer = Task { [weak self, clock] in
                    do { try await clock.sleep(for: timeout) } catch { return }
                    self?.fail(id: id, with: .commandTimedOut(command: name, timeout: timeout))
                }
                state.withLock { state in
                    if state.pending?.id == id { state.pending?.timer = timer } else { timer.cancel() }
                }
                Task { [weak self, transportName] in
                    do {
                        try await send()
                    } catch let error as any HCITransportError where error.isPermanent {
                        self?.fail(id: id, with: .transportRefused(transport: transportName, reason: "\(error)"))
                    } catch {
                        self?.fail(id: id, with: .transportDropped(transport: transportName, reason: "\(error)"))
                    }
                }
            }
        } catch let error as ScannerError {
            throw error
        } catch {
            throw .transportDropped(transport: transportName, reason: "\(error)")
        }
    }

    /// Hands a Command Complete/Status event to the waiting command if it names its opcode; returns whether it did.
    @discardableResult
    func deliver(_ reply: CommandReply) -> Bool {
        let pending = state.withLock { state -> Pending? in
            guard let pending = state.pending, pending.opcode == reply.opcode else { return nil }
            state.pending = nil
            return pending
        }
        guard let pending else { return false }
        pending.timer?.cancel()
        pending.continuation.resume(returning: reply)
        return true
    }

    /// Marks the link as gone: the waiting command and every later request fail with `.transportDropped`.
    func close(reason: String) {
        let pending = state.withLock { state -> Pending? in
            if state.closedReason == nil { state.closedReason = reason }
            defer { state.pending = nil }
            return state.pending
        }
        pending?.timer?.cancel()
        pending?.continuation.resume(throwing: ScannerError.transportDropped(transport: transportName, reason: reason))
    }

    private func fail(id: Int, with error: ScannerError) {
        let pending = state.withLock { state -> Pending? in
            guard let pending = state.pending, pending.id == id else { return nil }
            state.pending = nil
            return pending
        }
        pending?.timer?.cancel()
        pending?.continuation.resume(throwing: error)
    }
}
