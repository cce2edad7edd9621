import BlueDotCore
import FoundationEssentials
import Site
/// The table of configuration keys: each key's name, type and how it sets a `GatewayConfiguration`.
/// Shared by the file parser and the command-line overrides.
public enum ConfigurationKeys {
    /// Every key, in the order the documentation lists them.
    public static let all: [String] = [
        "hci", "user-channel", "h4-tcp", "h4-tty", "baud", "replay", "observations", "simulate", "venue", "mode", "gateway-id",
        "listen", "record", "token", "insecure", "loop", "speed", "interval", "stale-after", "web-root", "leaflet",
        "mqtt", "publish", "site", "receiver", "mqtt-password-file", "mqtt-password", "mqtt-client-id", "mqtt-keepalive",
        "mqtt-ca", "mqtt-cert", "mqtt-key", "mqtt-protocol", "espresense", "publish-allow", "publish-buffer",
        "reorder-window", "history", "history-retention", "history-max-size", "ha-discovery", "ha-prefix", "ha-allow",
        "ha-names",
    ]

    /// Sets `key` from its text `value`; throws the reason when the key is unknown or the value bad.
    public static func apply(
        key: String, value: String, to c: inout GatewayConfiguration
    ) throws(ConfigurationError.Reason) {
        switch key {
        case "hci": c.setSource(.hci(try nonEmpty(value), userChannel: false))
        case "user-channel":
            let on = try boolean(value)
            guard case .hci(let adapter, _)? = c.sources.first(where: \.isController) else {
                throw .conflict("user-channel needs hci before it")
            }
            c.setSource(.hci(adapter, userChannel: on))
        case "h4-tcp": c.setSource(.h4TCP(try nonEmpty(value)))
        case "h4-tty":
            var baud = 115_200
            if case .h4TTY(_, let b)? = c.sources.first(where: \.isController) { baud = b }
            c.setSource(.h4TTY(path: try nonEmpty(value), baud: baud))
        case "baud":
            let baud = try integer(value, in: 50...4_000_000)
            guard case .h4TTY(let path, _)? = c.sources.first(where: \.isController) else {
                throw .conflict("baud needs h4-tty before it")
            }
            c.setSource(.h4TTY(path: path, baud: baud))
        case "replay": c.setSource(.replay(path: try nonEmpty(value)))
        case "observations": c.setSource(.observations(path: try nonEmpty(value)))
        case "simulate": c.setSource(.simulate(trackPath: try nonEmpty(value)))
        case "venue": c.venuePath = try nonEmpty(value)
        case "mode":
            guard let mode = GatewayConfiguration.Mode(rawValue: value) else {
                throw .badValue("mode must be self or tag, got \"\(value)\"")
            }
            c.mode = mode
        case "gateway-id", "receiver":
            let id = try nonEmpty(value)
            guard SiteTopics.isTopicLevel(id) else { throw .badValue("\(key) must not contain /, + or #") }
            c.gatewayID = id
        case "listen":
            switch ListenAddress.parse(value) {
            case .success(let address): c.listen = address
            case .failure(let reason): throw reason
            }
        case "record": c.recordPath = try nonEmpty(value)
        case "token": c.token = try nonEmpty(value)
        case "insecure": c.insecure = try boolean(value)
        case "loop": c.loop = try boolean(value)
        case "speed": c.speed = try number(value)
        case "interval": c.intervalSeconds = try number(value)
        case "stale-after": c.staleAfterSeconds = try number(value)
        case "web-root": c.webRoot = try nonEmpty(value)
        case "leaflet": c.leafletPath = try nonEmpty(value)
        case "mqtt":
            let url = try brokerURL(value)
            c.site.solverBroker = url
            c.setSource(.site(broker: url))
        case "publish": c.site.publishBroker = try brokerURL(value)
        case "site":
            guard SiteTopics.isTopicLevel(value) else { throw .badValue("a site name is one MQTT topic level: no /, + or #") }
            c.site.site = value
        case "mqtt-password-file": c.site.passwordFile = try nonEmpty(value)
        case "mqtt-password": c.site.password = try nonEmpty(value)
        case "mqtt-client-id": c.site.clientID = try nonEmpty(value)
        case "mqtt-keepalive": c.site.keepAliveSeconds = try integer(value, in: 5...65535)
        case "mqtt-ca": c.site.caFile = try nonEmpty(value)
        case "mqtt-cert": c.site.certFile = try nonEmpty(value)
        case "mqtt-key": c.site.keyFile = try nonEmpty(value)
        case "mqtt-protocol":
            switch value {
            case "auto", "automatic": c.site.protocolVersion = .automatic
            case "5", "v5": c.site.protocolVersion = .v5
            case "3.1.1", "v3.1.1", "311": c.site.protocolVersion = .v311
            default: throw .badValue("mqtt-protocol must be auto, 5 or 3.1.1, got \"\(value)\"")
            }
        case "espresense":
            let prefix = value == "true" ? "espresense" : value
            guard value != "false" else {
                c.site.espresensePrefix = nil
                return
            }
            guard !prefix.isEmpty, !prefix.contains(where: { $0 == "+" || $0 == "#" }), !prefix.hasSuffix("/") else {
                throw .badValue("espresense is true or a base topic without wildcards, got \"\(value)\"")
            }
            c.site.espresensePrefix = prefix
        case "publish-allow":
            c.site.allow = value.split(separator: ",").compactMap {
                IDPattern(String($0.filter { !$0.isWhitespace }))
            }
            guard !c.site.allow.isEmpty else { throw .badValue("publish-allow needs at least one id glob") }
        case "publish-buffer":
            let seconds = try number(value)
            guard seconds >= 1, seconds <= 3600 else { throw .badValue("publish-buffer must be 1 ... 3600 seconds") }
            c.site.bufferSeconds = seconds
        case "reorder-window":
            let seconds = try number(value)
            guard seconds >= 0, seconds <= 10 else { throw .badValue("reorder-window must be 0 ... 10 seconds") }
            c.site.reorderWindowSeconds = seconds
        case "history":
            switch value {
            case "off", "false": c.history.store = .off
            case "memory", ":memory:": c.history.store = .memory
            case "default", "true": c.history.store = .stateDirectory
            default: c.history.store = .file(try nonEmpty(value))
            }
        case "history-retention":
            let days = try number(value)
            guard days > 0, days <= 3650 else { throw .badValue("history-retention must be in (0, 3650] days") }
            c.history.retentionDays = days
        case "history-max-size":
            let megabytes = try integer(value, in: 1...1_000_000)
            c.history.maxBytes = Int64(megabytes) << 20
        case "ha-discovery":
            c.homeAssistant.enabled = try boolean(value)
            c.homeAssistant.isConfigured = c.homeAssistant.isConfigured || c.homeAssistant.enabled
        case "ha-prefix":
            guard !value.isEmpty, !value.contains(where: { $0 == "+" || $0 == "#" }), !value.hasPrefix("/"),
                  !value.hasSuffix("/") else {
                throw .badValue("ha-prefix is an MQTT topic without wildcards or a leading or trailing /")
            }
            c.homeAssistant.prefix = value
            c.homeAssistant.isConfigured = true
        case "ha-allow":
            let globs = value.split(separator: ",").map { IDPattern(String($0.filter { !$0.isWhitespace })) }
            guard !globs.isEmpty, globs.allSatisfy({ $0 != nil }) else {
                throw .badValue("ha-allow needs target-id globs separated by commas")
            }
            c.homeAssistant.allow = globs.compactMap { $0 }
            c.homeAssistant.isConfigured = true
        case "ha-names":
            // `tag-1=Alice's keys, tag-2=Bob`: friendly names by target id.
            for pair in value.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw .badValue("ha-names is target=Name pairs separated by commas, got \"\(pair)\"")
                }
                c.homeAssistant.names[parts[0]] = parts[1]
            }
            c.homeAssistant.isConfigured = true
        default: throw .unknownKey(key)
        }
    }

    private static func brokerURL(_ value: String) throws(ConfigurationError.Reason) -> String {
        do {
            return try MQTTOptions(url: value).url
        } catch {
            throw .badValue(error.description)
        }
    }

    private static func nonEmpty(_ value: String) throws(ConfigurationError.Reason) -> String {
        guard !value.isEmpty else { throw .badType(expected: "a non-empty string", got: value) }
        return value
    }

    private static func boolean(_ value: String) throws(ConfigurationError.Reason) -> Bool {
        switch value {
        case "true": return true
        case "false": return false
        default: throw .badType(expected: "true or false", got: value)
        }
    }

    private static func integer(_ value: String, in range: ClosedRange<Int>) throws(ConfigurationError.Reason) -> Int {
        guard let n = Int(value) else { throw .badType(expected: "an integer", got: value) }
        guard range.contains(n) else { throw .badValue("must be \(range.lowerBound) ... \(range.upperBound), got \(n)") }
        return n
    }

    private static func number(_ value: String) throws(ConfigurationError.Reason) -> Double {
        guard let x = Double(value), x.isFinite else { throw .badType(expected: "a number", got: value) }
        return x
    }
}
