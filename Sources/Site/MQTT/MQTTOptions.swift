/// Where and how to reach a broker: `mqtt://[user@]host[:1883]` or `mqtts://[user@]host[:8883]`, the password kept
/// out of the URL (and so out of `ps`), TLS files, client id, keepalive and protocol version.
public struct MQTTOptions: Sendable, Hashable {
    /// Which protocol version to speak.
    public enum ProtocolVersion: String, Sendable, Hashable, CaseIterable {
        /// MQTT 5, falling back to 3.1.1 when the broker refuses 5 (the default).
        case automatic
        /// MQTT 5 only.
        case v5
        /// MQTT 3.1.1 only.
        case v311 = "v3.1.1"
    }

    /// The broker's host name or address.
    public var host: String
    /// The broker's port.
    public var port: Int
    /// TLS (`mqtts`).
    public var tls: Bool
    /// The user name, from the URL.
    public var username: String?
    /// The password (from a file or the configuration, never from the URL).
    public var password: String?
    /// The client id; empty: the caller's default.
    public var clientID = ""
    /// Keepalive interval, seconds (5 ... 65535).
    public var keepAliveSeconds = 30
    /// CA certificates (PEM) for `mqtts`; nil: the system's store (`/etc/ssl/certs`).
    public var caFile: String?
    /// Client certificate (PEM) for `mqtts` client authentication.
    public var certFile: String?
    /// The client certificate's key (PEM).
    public var keyFile: String?
    /// Protocol version.
    public var protocolVersion = ProtocolVersion.automatic
    /// First pause between reconnect attempts, seconds (growing up to `reconnectLargestDelaySeconds`:
    /// libmosquitto's own backoff after a lost link, doubling after a refusal).
    public var reconnectFirstDelaySeconds = 1
    /// Largest pause between reconnect attempts, seconds: 2, so that a broker back from a restart is reached
    /// within 2 s (a refused attempt costs the broker next to nothing, even from a thousand receivers).
    public var reconnectLargestDelaySeconds = 2

    /// Options for a broker at `host:port`.
    public init(host: String, port: Int, tls: Bool = false, username: String? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.username = username
    }

    /// Parses `mqtt://[user@]host[:port]` or `mqtts://...` (IPv6 hosts in brackets). A password in the URL is
    /// refused: it would show in `ps` and in logs.
    public init(url: String) throws(MQTTError) {
        func bad(_ why: String) -> MQTTError { .badURL(url, why) }
        let tls: Bool
        var rest: Substring
        if url.hasPrefix("mqtt://") {
            tls = false
            rest = url.dropFirst("mqtt://".count)
        } else if url.hasPrefix("mqtts://") {
            tls = true
            rest = url.dropFirst("mqtts://".count)
        } else {
            throw bad("expected mqtt://[user@]host[:port] or mqtts://...")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?") else { throw bad("no path or query is allowed") }
        var username: String?
        if let at = rest.lastIndex(of: "@") {
            let user = rest[..<at]
            guard !user.contains(":") else {
                throw bad("a password in the URL would show in ps: use --mqtt-password-file or the configuration file")
            }
            guard !user.isEmpty else { throw bad("empty user name") }
            username = String(user)
            rest = rest[rest.index(after: at)...]
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw bad("unclosed [ in the host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("expected :port after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw bad("no host") }
        var port = tls ? 8883 : 1883
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw bad("port must be 1 ... 65535") }
            port = p
        }
        self.init(host: String(host), port: port, tls: tls, username: username)
    }

    /// `mqtt[s]://[user@]host:port`, never with the password.
    public var url: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(username.map { "\($0)@" } ?? "")\(h):\(port)"
    }
}

/// What went wrong with MQTT: a bad URL or option, or libmosquitto refusing a call.
public enum MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broker URL cannot be used; the reason.
    case badURL(String, String)
    /// An option libmosquitto refused (TLS files, client id, keepalive): the option and libmosquitto's words.
    case badOption(String, String)
    /// A file (password, certificate) that cannot be read.
    case unreadableFile(String, String)
    /// A topic that cannot be published or subscribed to.
    case badTopic(String)

    public var description: String {
        switch self {
        case .badURL(let url, let why): "broker URL \"\(url)\": \(why)"
        case .badOption(let option, let why): "MQTT option \(option): \(why)"
        case .unreadableFile(let path, let why): "\(path): \(why)"
        case .badTopic(let topic): "MQTT topic \"\(topic)\" is not valid"
        }
    }
}
