/// A TCP peer, written `host:port` or `[v6-address]:port` (a bare IPv6 address with a port is ambiguous).
public struct TCPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A host name, an IPv4 address or an IPv6 address (without brackets).
    public var host: String
    /// The TCP port, 1...65535.
    public var port: UInt16

    /// Creates an endpoint from its parts.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` or `[v6]:port`; errors say what is wrong.
    public init(parsing text: String) throws(SystemIOError) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw .invalidEndpoint(text, reason: "missing ] after IPv6 address")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { throw .invalidEndpoint(text, reason: "missing :port") }
            portPart = after.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .invalidEndpoint(text, reason: "missing :port") }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") {
                throw .invalidEndpoint(text, reason: "write an IPv6 address in brackets")
            }
        }
        guard !hostPart.isEmpty else { throw .invalidEndpoint(text, reason: "empty host") }
        guard let port = UInt16(portPart), port != 0 else {
            throw .invalidEndpoint(text, reason: "port \"\(portPart)\" is not a number in 1...65535")
        }
        self.init(host: String(hostPart), port: port)
    }

    /// `host:port`, with brackets around an IPv6 address.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
