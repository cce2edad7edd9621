import BlueDotCore
import HCI

/// An in-memory controller behind the `HCITransport` protocol: answers the scanner's commands the way a real
/// controller would, and lets a test inject events, stay silent, refuse commands and drop the link.
final class FakeController: HCITransport {
    struct Behaviour: Sendable {
        /// Report the LE Extended Advertising feature and the extended scan command bits.
        var supportsExtendedScanning = false
        /// Report the feature bit but not the command bits (a half-capable controller).
        var featureBitOnly = false
        /// Commands that get no answer at all.
        var silentOpcodes: Set<UInt16> = []
        /// Commands answered with this status instead of success.
        var failingOpcodes: [UInt16: HCIStatus] = [:]
        /// Commands answered with this status the next time only.
        var failingOnce: [UInt16: HCIStatus] = [:]
        /// How many `open()` calls fail before one succeeds (after the first connection).
        var failedReopens = 0
        /// Commands whose write fails with an error that says whether a reconnect could cure it, as a kernel
        /// that refuses a command to a process without `CAP_NET_RAW` does.
        var refusedOpcodes: [UInt16: FakeRefusal] = [:]
        /// `HCITransport.longestReopenWait`.
        var longestReopenWait: Duration?
    }

    private struct State {
        var behaviour: Behaviour
        var sink: AsyncThrowingStream<HCIPacket, any Error>.Continuation?
        var sent: [HCICommandPacket] = []
        var opens = 0
        var closes = 0
        var scanning = false
    }

    private let state: LockedValue<State>
    let name = "fake"

    init(_ behaviour: Behaviour = Behaviour()) {
        state = LockedValue(State(behaviour: behaviour))
    }

    /// The commands received so far, in order.
    var sent: [HCICommandPacket] { state.withLock { $0.sent } }
    /// The opcodes received so far, in order.
    var sentOpcodes: [Opcode] { sent.map(\.opcode) }
    /// How many times the link was opened and closed.
    var opens: Int { state.withLock { $0.opens } }
    var closes: Int { state.withLock { $0.closes } }
    /// Whether the last scan enable command turned scanning on.
    var scanning: Bool { state.withLock { $0.scanning } }

    var longestReopenWait: Duration? { state.withLock { $0.behaviour.longestReopenWait } }

    func update(_ change: (inout Behaviour) -> Void) {
        state.withLock { change(&$0.behaviour) }
    }

    func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> {
        try state.withLock { state in
            if state.opens > 0 && state.behaviour.failedReopens > 0 {
                state.behaviour.failedReopens -= 1
                throw FakeError.connectionRefused
            }
            state.opens += 1
            let (stream, sink) = AsyncThrowingStream.makeStream(of: HCIPacket.self)
            state.sink = sink
            return stream
        }
    }

    func send(_ packet: HCIPacket) async throws {
        let command = try HCICommandPacket.decode(packet)
        let reply = try state.withLock { state -> HCIPacket? in
            guard let sink = state.sink else { throw FakeError.notOpen }
            state.sent.append(command)
            let opcode = command.opcode.rawValue
            if let refusal = state.behaviour.refusedOpcodes[opcode] { throw refusal }
            if state.behaviour.silentOpcodes.contains(opcode) { return nil }
            let status = state.behaviour.failingOnce.removeValue(forKey: opcode)
                ?? state.behaviour.failingOpcodes[opcode] ?? .success
            let reply = Self.reply(to: command, status: status, state: &state)
            _ = sink
            return reply
        }
        if let reply { inject(reply) }
    }

    func close() async {
        let sink = state.withLock { state in
            defer { state.sink = nil }
            state.closes += 1
            return state.sink
        }
        sink?.finish()
    }

    /// Sends a packet to the host as if the controller had.
    func inject(_ packet: HCIPacket) {
        _ = state.withLock { $0.sink?.yield(packet) }
    }

    /// Another program on the adapter sends a scan enable (`hcitool cmd 0x08 0x000C 00 00`, `bluetoothctl scan off`):
    /// the controller takes it, and its Command Complete reaches this host too, as the kernel copies events to every
    /// raw socket.
    func foreignScanEnable(_ enable: Bool, extended: Bool = false) {
        let opcode = extended ? LESetExtendedScanEnableCommand.opcode : LESetScanEnableCommand.opcode
        state.withLock { $0.scanning = enable }
        inject(HCIEvent.commandComplete(
            CommandCompleteEvent(numHCICommandPackets: 1, opcode: opcode, returnParameters: [0])).packet)
    }

    /// Another program resets the controller (the kernel's set-up after `hciconfig hci0 up`): it forgets its scan,
    /// and the Command Complete reaches this host too.
    func foreignReset() {
        state.withLock { $0.scanning = false }
        inject(HCIEvent.commandComplete(
            CommandCompleteEvent(numHCICommandPackets: 1, opcode: ResetCommand.opcode, returnParameters: [0])).packet)
    }

    /// Ends the link from the controller's side (as a TCP close would).
    func dropLink() {
        let sink = state.withLock { state in
            defer { state.sink = nil }
            return state.sink
        }
        sink?.finish()
    }

    private static func reply(to command: HCICommandPacket, status: HCIStatus, state: inout State) -> HCIPacket {
        let behaviour = state.behaviour
        let event: CommandCompleteEvent
        guard status.isSuccess else {
            return HCIEvent.commandComplete(
                CommandCompleteEvent(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [status.rawValue])
            ).packet
        }
        switch command.opcode {
        case ReadLocalVersionInformationCommand.opcode:
            event = CommandCompleteEvent(returning: LocalVersionInformation(
                hciVersion: 0x0D, hciRevision: 1, lmpVersion: 0x0D, manufacturer: 0xFFFF, lmpSubversion: 1))
        case ReadLocalSupportedCommandsCommand.opcode:
            var octets = [UInt8](repeating: 0xFF, count: LocalSupportedCommands.octetCount)
            if !behaviour.supportsExtendedScanning || behaviour.featureBitOnly { octets[37] = 0 }
            event = CommandCompleteEvent(returning: LocalSupportedCommands(octets: octets)!)
        case LEReadLocalSupportedFeaturesCommand.opcode:
            let extended = behaviour.supportsExtendedScanning || behaviour.featureBitOnly
            event = CommandCompleteEvent(returning: LESupportedFeatures(mask: extended ? 1 << 12 : 0))
        case LESetScanEnableCommand.opcode, LESetExtendedScanEnableCommand.opcode:
            let enable = command.parameters.first == 1
            // A real controller refuses to disable a scan that is not running.
            let answer: HCIStatus = !enable && !state.scanning ? .commandDisallowed : .success
            state.scanning = enable
            event = CommandCompleteEvent(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [answer.rawValue])
        default:
            event = CommandCompleteEvent(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [0])
        }
        return HCIEvent.commandComplete(event).packet
    }
}

enum FakeError: Error {
    case connectionRefused
    case notOpen
}

/// A refused write: permanent (a missing permission) or not (a link that went away).
struct FakeRefusal: HCITransportError, CustomStringConvertible {
    var isPermanent: Bool
    var description: String { isPermanent ? "permission denied: missing CAP_NET_RAW" : "write failed: ENETDOWN" }
}
