/// Where the HTTP server listens: a host (name, IPv4 or IPv6 literal) and a TCP port.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address literal, without brackets.
    public var host: String
    /// TCP port, 0 ... 65535 (0: the kernel picks a free port).
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The default: loopback only, port 8080.
    public static let loopbackDefault = ListenAddress(host: "127.0.0.1", port: 8080)

    /// Parses `HOST:PORT` or `[V6]:PORT`; nil with a reason otherwise.
    public static func parse(_ text: String) -> Result<ListenAddress, ConfigurationError.Reason> {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(.badValue("expected [IPv6]:PORT, got \"\(text)\""))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                return .failure(.badValue("expected HOST:PORT, got \"\(text)\""))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) }) else {
            return .failure(.badValue("bad host in \"\(text)\""))
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            return .failure(.badValue("port must be 0 ... 65535 in \"\(text)\""))
        }
        return .success(ListenAddress(host: String(host), port: port))
    }

    /// True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `HOST:PORT`, with brackets around IPv6 literals.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
