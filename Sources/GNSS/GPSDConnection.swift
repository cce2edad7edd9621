import SystemIO

/// The byte stream a `GPSDLocationSource` talks to gpsd over: `SystemIO`' `TCPByteStream` (gpsd on port
/// 2947), or a scripted peer in tests. Same semantics as `TCPByteStream`: `open()` closes any earlier link and
/// connects anew; the stream finishes when the peer closes.
public protocol GPSDConnection: Sendable {
    /// A name for logs and errors (`tcp:127.0.0.1:2947`).
    var name: String { get }
    /// Connects and returns the chunks read.
    func open() async throws -> AsyncThrowingStream<[UInt8], any Error>
    /// Writes a command.
    func write(_ bytes: [UInt8]) async throws
    /// Closes the link; returns once it is closed.
    func close() async
}

extension TCPByteStream: GPSDConnection {}

/// Where a `GPSDLocationSource`'s link to gpsd stands: its `connectionStates` stream.
public enum GPSDConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Connecting (the first time, or again after `retryAt` came).
    case connecting
    /// Connected and watching; `release` is gpsd's version once its greeting came.
    case connected(release: String?)
    /// The link failed or gpsd went away (`reason`); the source tries again at `retryAt` (clock seconds).
    case disconnected(reason: String, retryAt: Double)

    /// For logs and the status: `connected to gpsd 3.22`, `disconnected (...), retrying`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected(let release): release.map { "connected to gpsd \($0)" } ?? "connected"
        case .disconnected(let reason, _): "disconnected (\(reason)), retrying"
        }
    }
}

/// Why a `GPSDLocationSource`'s run ended: the link, or gpsd's own complaint.
public enum GPSDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// gpsd could not be reached (`error` says why).
    case unreachable(String, error: String)
    /// The link to gpsd was lost after it had been up (`reason`: gpsd closed it, or a read failed).
    case lost(String, reason: String)

    /// What happened, naming gpsd's address.
    public var description: String {
        switch self {
        case .unreachable(let name, let error): "gpsd at \(name) is unreachable: \(error)"
        case .lost(let name, let reason): "the link to gpsd at \(name) was lost: \(reason)"
        }
    }
}
