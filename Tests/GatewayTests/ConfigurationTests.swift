import BlueDotCore
import Gateway
import Testing

/// The configuration file format and validation: golden error messages naming file:line and key.
@Suite struct ConfigurationTests {
    func error(_ text: String) -> String? {
        do {
            let c = try ConfigurationFile.parse(text, file: "gw.conf")
            try c.validate(location: "gw.conf")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aCompleteFileParses() throws {
        let c = try ConfigurationFile.parse(
            """
            # the lab gateway
            h4-tty = /dev/ttyUSB0
            baud = 1000000
            venue = "/etc/bluedot/lab venue.json"   # quoted: a space in the path
            mode = tag
            gateway-id = rx-1
            listen = [::1]:9090
            record = /var/lib/bluedot/scan.btsnoop
            interval = 0.5
            stale-after = 8

            """, file: "gw.conf")
        try c.validate()
        #expect(c.sources == [.h4TTY(path: "/dev/ttyUSB0", baud: 1_000_000)])
        #expect(c.venuePath == "/etc/bluedot/lab venue.json")
        #expect(c.mode == .tag)
        #expect(c.gatewayID == "rx-1")
        #expect(c.listen == ListenAddress(host: "::1", port: 9090))
        #expect(c.listen.isLoopback)
        #expect(c.recordPath == "/var/lib/bluedot/scan.btsnoop")
        #expect(c.intervalSeconds == 0.5)
        #expect(c.staleAfterSeconds == 8)
    }

    @Test func goldenErrors() {
        let cases: [(String, String)] = [
            ("venue = v.json\nfoo = 1", "gw.conf:2: unknown key \"foo\""),
            ("speed = fast", "gw.conf:1: speed: expected a number, got \"fast\""),
            ("insecure = yes", "gw.conf:1: insecure: expected true or false, got \"yes\""),
            ("listen = 127.0.0.1:99999", "gw.conf:1: listen: port must be 0 ... 65535 in \"127.0.0.1:99999\""),
            ("listen = localhost", "gw.conf:1: listen: expected HOST:PORT, got \"localhost\""),
            ("\n\nvenue", "gw.conf:3: expected key = value"),
            ("venue = a\nvenue = b", "gw.conf:2: venue: \"venue\" given twice"),
            ("venue = \"a", "gw.conf:1: venue: unterminated quote"),
            ("mode = both", "gw.conf:1: mode: mode must be self or tag, got \"both\""),
            ("baud = 9600", "gw.conf:1: baud: baud needs h4-tty before it"),
            ("h4-tty = /dev/ttyS0\nbaud = 12", "gw.conf:2: baud: must be 50 ... 4000000, got 12"),
            ("venue = v.json", "gw.conf: no source: give one of hci, h4-tcp, h4-tty, replay, observations, simulate, gpsd"),
            ("replay = r.btsnoop", "gw.conf: venue: a venue file is required"),
            (
                "replay = r.btsnoop\nvenue = v.json\nlisten = 0.0.0.0:8080",
                "gw.conf: listen: 0.0.0.0:8080 is reachable from other machines: set a token, or insecure = true"
            ),
            (
                "replay = r.btsnoop\nvenue = v.json\ntoken = short",
                "gw.conf: token: a token is at least 16 printable ASCII characters without spaces"
            ),
            (
                "observations = o.jsonl\nvenue = v.json\nrecord = out.btsnoop",
                "gw.conf: record: recording needs a live source (hci, h4-tcp, h4-tty)"
            ),
            (
                "h4-tcp = 127.0.0.1:9000\nvenue = v.json\nmode = tag",
                "gw.conf: gateway-id: tag mode with a radio source needs gateway-id (this receiver's anchor id)"
            ),
            (
                "gpsd = 127.0.0.1:2947\nvenue = v.json\nmode = tag",
                "gw.conf: gpsd: gpsd locates this gateway itself: self mode, not a receiver or a solver"
            ),
            ("gpsd = 127.0.0.1\n", "gw.conf: venue: a venue file is required"),
            ("observations = o.jsonl\nvenue = v.json\nspeed = 0", "gw.conf: speed: must be in (0, 1000]"),
            ("observations = o.jsonl\nvenue = v.json\ninterval = 0.01", "gw.conf: interval: must be 0.1 ... 60 seconds"),
        ]
        for (text, expected) in cases {
            #expect(error(text) == expected, "\(text.debugDescription)")
        }
    }

    @Test func nonLoopbackIsAllowedWithATokenOrInsecure() throws {
        let withToken = try ConfigurationFile.parse(
            "replay = r.btsnoop\nvenue = v.json\nlisten = 0.0.0.0:8080\ntoken = 0123456789abcdef0123", file: "gw.conf")
        try withToken.validate()
        let insecure = try ConfigurationFile.parse(
            "replay = r.btsnoop\nvenue = v.json\nlisten = 10.0.0.5:80\ninsecure = true", file: "gw.conf")
        try insecure.validate()
        #expect(!insecure.listen.isLoopback)
    }

    @Test func aHashInsideQuotesIsNotAComment() throws {
        let c = try ConfigurationFile.parse("venue = \"plans/#2.json\" # comment", file: "gw.conf")
        #expect(c.venuePath == "plans/#2.json")
    }

    @Test func everyDocumentedKeyIsAccepted() throws {
        var c = GatewayConfiguration()
        let samples: [String: String] = [
            "hci": "hci0", "user-channel": "true", "h4-tcp": "127.0.0.1:1", "replay": "r", "observations": "o", "simulate": "t",
            "venue": "v", "gpsd": "gpsd.lan:2947", "mode": "self", "gateway-id": "g", "devices": "/etc/bluedot/devices.json",
            "devices-list-unknown": "true", "listen": "127.0.0.1:1", "record": "r",
            "token": "0123456789abcdef", "insecure": "false", "loop": "true", "speed": "2", "interval": "1",
            "stale-after": "5", "away-timeout": "60", "away-timeout-inside": "3600", "fast-clock": "60@1767225600", "web-root": "w", "leaflet": "l", "h4-tty": "/dev/ttyS0", "baud": "9600",
            "mqtt": "mqtt://broker.lan", "publish": "mqtts://rx@broker.lan:8884", "site": "home", "receiver": "rx-1",
            "mqtt-password-file": "/etc/bluedot/pw", "mqtt-password": "pw", "mqtt-client-id": "c", "mqtt-keepalive": "20",
            "mqtt-ca": "ca.pem", "mqtt-cert": "c.pem", "mqtt-key": "k.pem", "mqtt-protocol": "3.1.1",
            "espresense": "true", "publish-allow": "ibeacon:*, mac:c0:*", "publish-buffer": "10", "reorder-window": "0.5",
            "advertise": "true",
            "history": "/var/lib/bluedot/h.sqlite", "history-retention": "7", "history-max-size": "64",
            "self-calibration": "false", "learned-calibration": "/var/lib/bluedot/learned.json",
            "ha-discovery": "true", "ha-prefix": "ha", "ha-allow": "tag-*", "ha-names": "tag-1=Alice's keys, tag-2 = Bob",
            "ha-away-timeout": "60", "ha-remove": "tag-3, tag-4", "editable": "true", "bluez-keys": "/srv/bluez",
            "sites": "west,east",
        ]
        for key in GatewaySetting.all.map(\.key) {
            let value = try #require(samples[key], "no sample for \(key)")
            try GatewaySetting.apply(key: key, value: value, to: &c)
        }
        #expect(c.sources == [
            .h4TTY(path: "/dev/ttyS0", baud: 9600), .replay(path: "r"), .observations(path: "o"),
            .simulate(trackPath: "t"), .site(broker: "mqtt://broker.lan:1883"),
        ], "the last controller key wins; files add inputs")
        #expect(c.leafletPath == "l" && c.webRoot == "w" && c.loop && c.speed == 2)
        #expect(c.devicesPath == "/etc/bluedot/devices.json" && c.listUnknownDevices)
        #expect(c.editable && c.bluezKeysPath == "/srv/bluez" && c.site.sites == ["west", "east"])
        #expect(c.site.publishBroker == "mqtts://rx@broker.lan:8884" && c.site.site == "home" && c.gatewayID == "rx-1")
        #expect(c.site.protocolVersion == .v311 && c.site.keepAliveSeconds == 20 && c.site.espresensePrefix == "espresense")
        #expect(c.site.allow.map(\.pattern) == ["ibeacon:*", "mac:c0:*"] && c.site.reorderWindowSeconds == 0.5)
        #expect(c.site.advertise)
        #expect(c.history.store == .file("/var/lib/bluedot/h.sqlite") && c.history.retentionDays == 7)
        #expect(c.history.maxBytes == 64 << 20)
        #expect(c.homeAssistant.prefix == "ha" && c.homeAssistant.allow.map(\.pattern) == ["tag-*"])
        #expect(c.awayAfterSeconds == 60 && c.awayAfterSecondsInside == 3600 && c.homeAssistant.remove == ["tag-3", "tag-4"])
        #expect(c.homeAssistant.names == ["tag-1": "Alice's keys", "tag-2": "Bob"])
        #expect(c.fastClock == ScaledClock(rate: 60, epoch: 1_767_225_600))
    }

    /// The history's default file: the service's state directory, else the XDG state folder, else the home's.
    @Test func historyDefaultsToTheStateDirectory() throws {
        #expect(HistorySettings.defaultPath(environment: ["STATE_DIRECTORY": "/var/lib/bluedot", "HOME": "/root"])
            == "/var/lib/bluedot/history.sqlite")
        #expect(HistorySettings.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/bluedot/history.sqlite")
        #expect(HistorySettings.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/state/bluedot/history.sqlite")
        #expect(HistorySettings.defaultPath(environment: [:]) == nil)
        var c = try ConfigurationFile.parse("observations = o\nvenue = v\nhistory = off\n", file: "h.conf")
        #expect(c.history.store == .off)
        try GatewaySetting.apply(key: "history", value: "memory", to: &c)
        #expect(c.history.store == .memory)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse("observations = o\nvenue = v\nhistory-retention = 0\n", file: "h.conf")
        }
    }

    /// What parsing and validating `text` as `file` says: "valid", or the error.
    static func verdict(_ text: String, file: String) -> String {
        do {
            try ConfigurationFile.parse(text, file: file).validate(location: file)
            return "valid"
        } catch {
            return "\(error)"
        }
    }

    @Test func siteRolesAreCheckedAsAWhole() throws {
        func error(_ text: String) -> String { Self.verdict(text, file: "site.conf") }
        #expect(error("h4-tcp = 127.0.0.1:9\npublish = mqtt://b\nsite = s\nreceiver = rx") == "valid")
        #expect(error("h4-tcp = 127.0.0.1:9\npublish = mqtt://b\nreceiver = rx").contains("site"))
        #expect(error("h4-tcp = 127.0.0.1:9\npublish = mqtt://b\nsite = s").contains("receiver"))
        #expect(error("h4-tcp = 127.0.0.1:9\npublish = mqtt://b\nsite = s\nreceiver = rx\nvenue = v.json")
            .contains("does not solve"))
        #expect(error("observations = o\npublish = mqtt://b\nsite = s\nreceiver = rx").contains("radio"))
        #expect(error("mqtt = mqtt://b\nsite = s\nvenue = v\nmode = tag") == "valid")
        #expect(error("mqtt = mqtt://b\nsite = s\nvenue = v").contains("mode tag"))
        #expect(error("mqtt = mqtt://b\nvenue = v\nmode = tag").contains("site"))
        #expect(error("mqtt = mqtt://u:pw@b\nsite = s\nvenue = v\nmode = tag").contains("password"))
        #expect(error("mqtt = mqtt://b\nsite = a/b\nvenue = v\nmode = tag").contains("topic level"))
        #expect(error("hci = hci0\nespresense = true\nvenue = v").contains("espresense"))
        #expect(error("observations = o\nvenue = v\nha-prefix = ha").contains("solver's broker"))
        #expect(error("observations = o\nvenue = v\nha-discovery = false") == "valid")
        #expect(error("mqtt = mqtt://b\nsite = s\nvenue = v\nmode = tag\nha-names = tag-1").contains("target=Name"))
        #expect(error("mqtt = mqtt://b\nsite = s\nvenue = v\nmode = tag\nha-away-timeout = 0")
            .contains("ha-away-timeout must be 1 ... 86400 seconds"))
        #expect(error("mqtt = mqtt://b\nsite = s\nvenue = v\nmode = tag\nha-remove = a/b").contains("ha-remove"))
        // Presence is every role's: the old name of away-timeout needs no solver.
        #expect(error("observations = o\nvenue = v\nha-away-timeout = 60") == "valid")
        #expect(error("observations = o\nvenue = v\naway-timeout-inside = 0").contains("away-timeout-inside"))
        #expect(error("observations = o\nvenue = v\nfast-clock = 0@5").contains("fast-clock's rate"))
        #expect(error("observations = o\nvenue = v\nfast-clock = 60@yesterday").contains("fast-clock's epoch"))
    }

    /// A campus view (`sites`) reads one broker, has no venue or other input of its own, and takes a name of its own
    /// (`site`) only outside the sites it shows; Home Assistant settings need that name.
    @Test func aCampusViewIsCheckedAsAWhole() throws {
        func error(_ text: String) -> String { Self.verdict(text, file: "campus.conf") }
        #expect(error("mqtt = mqtt://b\nsites = west, east") == "valid")
        #expect(error("mqtt = mqtt://b\nsites = +\nsite = campus\nha-names = keys=Keys") == "valid")
        #expect(error("sites = west").contains("no source"))
        #expect(error("mqtt = mqtt://b\nsites = west\nvenue = v").contains("drop venue"))
        #expect(error("mqtt = mqtt://b\nsites = west\nobservations = o").contains("its one input is mqtt"))
        #expect(error("mqtt = mqtt://b\nsites = west\nsite = west").contains("not one of the sites"))
        #expect(error("mqtt = mqtt://b\nsites = west\nha-prefix = ha").contains("set site"))
        #expect(error("mqtt = mqtt://b\nsites = west, +").contains("+ stands for every site"))
        #expect(error("mqtt = mqtt://b\nsites = a/b").contains("topic level"))
    }
}
