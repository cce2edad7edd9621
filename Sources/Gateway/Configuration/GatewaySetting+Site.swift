import BlueDotCore
import Site

extension GatewaySetting {
    /// A site over MQTT (`docs/site.md`): the solver (`mqtt`) or a receiver (`publish`), and their connection.
    static let site: [GatewaySetting] = [
        GatewaySetting(
            "mqtt", .brokerURL, example: "mqtt://broker.lan",
            help: "Solver role: take the site's receivers from this broker (mqtt://[user@]host[:port] or mqtts://...)."
        ) { c, url in
            c.site.solverBroker = url
            c.setSource(.site(broker: url))
        },
        GatewaySetting(
            "publish", .brokerURL, example: "mqtts://rx@broker.lan:8884",
            help: "Receiver role: publish every report heard to this broker (mqtt://... or mqtts://...).",
            sets: \.site.publishBroker
        ),
        GatewaySetting("site", .text("name"), example: "home", help: "The site's name (one MQTT topic level).") {
            c, name throws(ConfigurationError.Reason) in
            guard SiteTopics.isTopicLevel(name) else {
                throw .badValue("a site name is one MQTT topic level: no /, + or #")
            }
            c.site.site = name
        },
        GatewaySetting(
            "sites", .text("names"), example: "west,east",
            help: "Campus view: show these sites' solvers' locations from the mqtt broker (comma-separated, or + for "
                + "every site); solves nothing."
        ) { c, value throws(ConfigurationError.Reason) in
            let names = value.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
            guard !names.isEmpty else { throw .badValue("sites needs at least one site name, or +") }
            if names.contains("+") {
                guard names == ["+"] else { throw .badValue("+ stands for every site: give it alone") }
            } else if let bad = names.first(where: { !SiteTopics.isTopicLevel($0) }) {
                throw .badValue("a site name is one MQTT topic level: no /, + or #, got \"\(bad)\"")
            }
            c.site.sites = names
        },
        GatewaySetting(
            "receiver", .topicLevel, example: "rx-1",
            help: "Receiver role (and a solver's own radio): this receiver's id, its anchor id in the venue.",
            sets: \.gatewayID
        ),
        GatewaySetting(
            "mqtt-password-file", .file, example: "/etc/bluedot/pw",
            help: "File whose first line is the broker password.", sets: \.site.passwordFile
        ),
        // The password itself only ever comes from the file: as a flag, `ps` would show it.
        GatewaySetting(
            "mqtt-password", .nonEmpty("password"), example: "pw",
            help: "The broker password (configuration file only).", flags: [], sets: \.site.password
        ),
        GatewaySetting(
            "mqtt-client-id", .nonEmpty("id"), example: "gw-1",
            help: "MQTT client id (default bluedot-<role>-<site>[-<receiver>]).", sets: \.site.clientID
        ),
        GatewaySetting(
            "mqtt-keepalive", .integer("seconds", in: 5...65535), example: "20",
            help: "MQTT keepalive, seconds (default 30).", sets: \.site.keepAliveSeconds
        ),
        GatewaySetting(
            "mqtt-ca", .file, example: "ca.pem", help: "CA certificates (PEM) for mqtts.", sets: \.site.caFile
        ),
        GatewaySetting(
            "mqtt-cert", .file, example: "client.pem", help: "Client certificate (PEM) for mqtts.",
            sets: \.site.certFile
        ),
        GatewaySetting(
            "mqtt-key", .file, example: "client.key", help: "Client certificate key (PEM) for mqtts.",
            sets: \.site.keyFile
        ),
        GatewaySetting(
            "mqtt-protocol", .mqttProtocol, example: "3.1.1", help: "auto (MQTT 5, falling back to 3.1.1), 5 or 3.1.1.",
            sets: \.site.protocolVersion
        ),
        GatewaySetting(
            "espresense", .text("true|false|topic"), example: "espresense-west",
            help: "Solver role: also take ESPresense nodes' reports: true, false, or their base topic.",
            flags: [
                SettingFlag(
                    "espresense", .presence("true"),
                    help: "Solver role: also take ESPresense nodes' reports (espresense/devices/<device>/<node>)."),
                SettingFlag(
                    "espresense-prefix", .value, placeholder: "topic",
                    help: "ESPresense base topic (default espresense); implies --espresense."),
            ]
        ) { c, value throws(ConfigurationError.Reason) in
            guard value != "false" else {
                c.site.espresensePrefix = nil
                return
            }
            let prefix = value == "true" ? "espresense" : value
            guard !prefix.isEmpty, !prefix.contains(where: { $0 == "+" || $0 == "#" }), !prefix.hasSuffix("/") else {
                throw .badValue("espresense is true or a base topic without wildcards, got \"\(value)\"")
            }
            c.site.espresensePrefix = prefix
        },
        GatewaySetting(
            "publish-allow", .text("globs"), example: "ibeacon:*, mac:c0:*",
            help: "Receiver role: comma-separated beacon-id globs to publish (default all)."
        ) { c, value throws(ConfigurationError.Reason) in
            c.site.allow = value.split(separator: ",").compactMap { IDPattern(String($0.filter { !$0.isWhitespace })) }
            guard !c.site.allow.isEmpty else { throw .badValue("publish-allow needs at least one id glob") }
        },
        GatewaySetting(
            "publish-buffer", .number("seconds", in: 1...3600), example: "10",
            help: "Receiver role: seconds of sightings kept while the broker is away (default 30).",
            sets: \.site.bufferSeconds
        ),
        GatewaySetting(
            "advertise", .boolean, example: "true",
            help: "Receiver role (and a solver's own radio): advertise while scanning, so the other receivers hear "
                + "this one and the solver learns their gains (default false).",
            sets: \.site.advertise
        ),
        GatewaySetting(
            "reorder-window", .number("seconds", in: 0...10), example: "0.5",
            help: "Solver role: seconds sightings wait for slower receivers (default 0.3).",
            sets: \.site.reorderWindowSeconds
        ),
    ]

    /// The location history (`docs/gateway.md`, "History").
    static let history: [GatewaySetting] = [
        GatewaySetting(
            "history", .history, example: "/var/lib/bluedot/h.sqlite",
            help: "Location history: an SQLite file, default (the state directory's history.sqlite), memory or off.",
            sets: \.history.store
        ),
        GatewaySetting(
            "history-retention", .number("days"), example: "7", help: "Days of history kept (default 30)."
        ) { c, days throws(ConfigurationError.Reason) in
            guard days > 0, days <= 3650 else { throw .badValue("history-retention must be in (0, 3650] days") }
            c.history.retentionDays = days
        },
        GatewaySetting(
            "history-max-size", .integer("MiB", in: 1...1_000_000), example: "64",
            help: "History size cap, MiB (default 1024)."
        ) { c, megabytes in c.history.maxBytes = Int64(megabytes) << 20 },
        GatewaySetting(
            "self-calibration", .boolean, example: "false",
            help: "Learn the anchors' models from ordinary traffic (default true; docs/positioning.md).",
            flags: [
                SettingFlag(
                    "no-self-calibration", .presence("false"),
                    help: "Do not learn the anchors' models from ordinary traffic."),
            ],
            sets: \.selfCalibration.enabled
        ),
        GatewaySetting(
            "learned-calibration", .history, example: "/var/lib/bluedot/learned.json",
            help: "Where self-calibration keeps what it learned: a file, default (the state directory's "
                + "learned-calibration.json), or memory.",
            sets: \.selfCalibration.store
        ),
    ]

    /// Home Assistant MQTT discovery by a site's solver (`docs/site.md`, "Home Assistant").
    static let homeAssistant: [GatewaySetting] = [
        GatewaySetting(
            "ha-discovery", .boolean, example: "false",
            help: "Solver role: publish Home Assistant MQTT discovery (default true).",
            flags: [
                SettingFlag(
                    "no-ha-discovery", .presence("false"),
                    help: "Solver role: do not publish Home Assistant MQTT discovery."),
            ]
        ) { c, on in
            c.homeAssistant.enabled = on
            c.homeAssistant.isConfigured = c.homeAssistant.isConfigured || on
        },
        homeAssistantSetting(
            "ha-prefix", .text("topic"), example: "ha",
            help: "Solver role: Home Assistant's discovery prefix (default homeassistant)."
        ) { h, prefix throws(ConfigurationError.Reason) in
            guard !prefix.isEmpty, !prefix.contains(where: { $0 == "+" || $0 == "#" }), !prefix.hasPrefix("/"),
                  !prefix.hasSuffix("/") else {
                throw .badValue("ha-prefix is an MQTT topic without wildcards or a leading or trailing /")
            }
            h.prefix = prefix
        },
        homeAssistantSetting(
            "ha-allow", .text("globs"), example: "tag-*",
            help: "Solver role: comma-separated target-id globs announced to Home Assistant (default all)."
        ) { h, value throws(ConfigurationError.Reason) in
            h.allow = try commaSeparated(value, "ha-allow needs target-id globs separated by commas") {
                IDPattern(String($0.filter { !$0.isWhitespace }))
            }
        },
        homeAssistantSetting(
            "ha-names", .text("names"), example: "tag-1=Alice's keys, tag-2 = Bob",
            help: "Solver role: friendly names, target=Name pairs separated by commas."
        ) { h, value throws(ConfigurationError.Reason) in
            for pair in value.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw .badValue("ha-names is target=Name pairs separated by commas, got \"\(pair)\"")
                }
                h.names[parts[0]] = parts[1]
            }
        },
        GatewaySetting(
            "ha-away-timeout", .number("seconds", in: 1...86_400), example: "60",
            help: "The old name of away-timeout.", sets: \.awayAfterSeconds
        ),
        homeAssistantSetting(
            "ha-remove", .text("targets"), example: "tag-1, tag-2",
            help: "Solver role: target ids whose Home Assistant entities are removed, comma-separated."
        ) { h, value throws(ConfigurationError.Reason) in
            h.remove = try commaSeparated(value, "ha-remove needs target ids (no /, + or #) separated by commas") {
                SiteTopics.isTopicLevel($0) ? $0 : nil
            }
        },
    ]

    /// A Home Assistant setting: `set` stores its value, and giving it marks Home Assistant configured (an `ha-*`
    /// key needs a solver).
    private static func homeAssistantSetting<Value>(
        _ key: String, _ kind: SettingKind<Value>, example: String, help: String,
        set: @escaping @Sendable (inout HomeAssistantSettings, Value) throws(ConfigurationError.Reason) -> Void
    ) -> GatewaySetting {
        GatewaySetting(key, kind, example: example, help: help) { c, value throws(ConfigurationError.Reason) in
            try set(&c.homeAssistant, value)
            c.homeAssistant.isConfigured = true
        }
    }

    /// The items of a comma-separated list, each trimmed of blanks and made by `make`; `message` when there is none
    /// or `make` refuses one.
    private static func commaSeparated<Item>(
        _ value: String, _ message: String, _ make: (String) -> Item?
    ) throws(ConfigurationError.Reason) -> [Item] {
        let items = value.split(separator: ",").map { make($0.trimmingBlanks()) }
        guard !items.isEmpty, items.allSatisfy({ $0 != nil }) else { throw .badValue(message) }
        return items.compactMap { $0 }
    }
}

extension SettingKind<MQTTOptions.ProtocolVersion> {
    /// `auto`, `5` or `3.1.1` (and their spellings `automatic`, `v5`, `v3.1.1`, `311`).
    static var mqttProtocol: Self {
        Self("version", completion: .choices(["auto", "5", "3.1.1"])) { text, _ throws(ConfigurationError.Reason) in
            switch text {
            case "auto", "automatic": return .automatic
            case "5", "v5": return .v5
            case "3.1.1", "v3.1.1", "311": return .v311
            default: throw .badValue("mqtt-protocol must be auto, 5 or 3.1.1, got \"\(text)\"")
            }
        }
    }
}

extension SettingKind<HistorySettings.Store> {
    /// A file, `default` (`true`), `memory` (`:memory:`) or `off` (`false`).
    static var history: Self {
        Self("file", completion: .file) { text, _ throws(ConfigurationError.Reason) in
            switch text {
            case "off", "false": return .off
            case "memory", ":memory:": return .memory
            case "default", "true": return .stateDirectory
            case "": throw .badType(expected: "a non-empty string", got: text)
            default: return .file(text)
            }
        }
    }
}
