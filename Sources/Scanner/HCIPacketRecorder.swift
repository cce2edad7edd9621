import HCI

/// Receives every HCI packet a scanner sends and receives, as it goes: the hook behind `--record`.
///
/// Implementations must be quick and must not throw: a recorder that fails reports through its own logging, and
/// the scan goes on. SystemIO's btsnoop recorder is adapted to this protocol by the executable.
public protocol HCIPacketRecorder: Sendable {
    /// Records one packet, its direction and when it passed (Unix seconds from the scanner's clock).
    func record(_ packet: HCIPacket, direction: HCIDirection, timestamp: Double)
}
