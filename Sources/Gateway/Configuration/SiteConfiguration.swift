import Site
import SystemIO

/// The site settings of `bluedot run` (`docs/site.md`): the receiver role publishes what it hears to a broker
/// (`publish`), the solver role takes a site's receivers from one (`mqtt`); both name the site and share the
/// connection settings.
public struct SiteConfiguration: Sendable, Hashable {
    /// The site name, one MQTT topic level.
    public var site: String?
    /// Solver role: the broker to take the site's sightings from.
    public var solverBroker: String?
    /// Receiver role: the broker to publish sightings to.
    public var publishBroker: String?
    /// A file holding the broker password (first line).
    public var passwordFile: String?
    /// The broker password, from the configuration file only (never a flag: `ps` would show it).
    public var password: String?
    /// The MQTT client id; default `bluedot-<role>-<site>[-<receiver>]`.
    public var clientID: String?
    /// Keepalive, seconds.
    public var keepAliveSeconds = 30
    /// CA certificates for `mqtts`.
    public var caFile: String?
    /// Client certificate for `mqtts`.
    public var certFile: String?
    /// Its key.
    public var keyFile: String?
    /// MQTT 5 with 3.1.1 fallback, or one of them.
    public var protocolVersion = MQTTOptions.ProtocolVersion.automatic
    /// Solver role: the ESPresense base topic to take node reports from; nil: none.
    public var espresensePrefix: String?
    /// Receiver role: beacon-id globs to publish (empty: every beacon).
    public var allow: [IDPattern] = []
    /// Receiver role: how much the buffer keeps while the broker is away, seconds.
    public var bufferSeconds = 30.0
    /// Solver role: how long sightings wait for slower receivers, seconds.
    public var reorderWindowSeconds = 0.3
    /// A receiver's radio (a receiver, or a solver's own radio) advertises its `ReceiverBeacon` while it scans.
    public var advertise = false
    /// A campus view (`docs/site.md`, "Many buildings"): the sites whose solvers' locations it reads from the
    /// `mqtt` broker, or `["+"]` for every site there; empty: not a campus view.
    public var sites: [String] = []

    /// No site.
    public init() {}

    /// The client options for `url` with these settings; reads the password file. `defaultClientID` is used
    /// when no client id is set.
    public func options(url: String, defaultClientID: String) throws -> MQTTOptions {
        var options = try MQTTOptions(url: url)
        options.clientID = clientID ?? defaultClientID
        options.keepAliveSeconds = keepAliveSeconds
        options.caFile = caFile
        options.certFile = certFile
        options.keyFile = keyFile
        options.protocolVersion = protocolVersion
        options.password = password
        if let passwordFile { options.password = try Self.readPassword(passwordFile) }
        return options
    }

    /// The first line of `path`, without its line end.
    static func readPassword(_ path: String) throws(MQTTError) -> String {
        let contents: [UInt8]
        do { contents = try WholeFile.read(path, limit: 1 << 20) } catch { throw .unreadableFile(path, error.reason) }
        var bytes = Array(contents.prefix { $0 != 0x0A }.prefix(4096))
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw .unreadableFile(path, "the password file is empty") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
