import BlueDotCore
import Foundation
import LocationDisplay
import Testing

@testable import HomeAssistant
@testable import Site

/// The discovery configs and payloads, without a broker: every config against the schema written from Home
/// Assistant's documentation (`HomeAssistantSchema`), ids, sanitising, the allow-list, names, states, attributes.
@Suite struct HomeAssistantDiscoveryTests {
    static let site = SiteTopics(site: "house")!
    static let discovery = HomeAssistantDiscovery(
        topics: site, allow: [IDPattern("ibeacon:*")!, IDPattern("keys")!, IDPattern("odd*")!],
        names: ["keys": "Alice's \"keys\""], roomNames: ["kitchen": "Kitchen", "hall": "Hall", "k2": "Kitchen"])
    static let target = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"
    /// Ids that stress the configs: canonical, short, quotes and backslashes, non-ASCII, very long.
    static let targets = [target, "keys", "odd \"id\"\\ é", "odd" + String(repeating: "x", count: 200)]

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func everyConfigFollowsTheDocumentedSchema() {
        let plain = HomeAssistantDiscovery(topics: Self.site)
        for d in [Self.discovery, plain] {
            for target in Self.targets {
                #expect(HomeAssistantSchema.validate(d.trackerConfig(target), component: "device_tracker") == [], "\(target)")
                #expect(HomeAssistantSchema.validate(d.sensorConfig(target), component: "sensor") == [], "\(target)")
                for measurement in HomeAssistantDiscovery.Measurement.allCases {
                    #expect(HomeAssistantSchema.validate(d.measurementConfig(target, measurement), component: "sensor")
                        == [], "\(target) \(measurement)")
                }
            }
            #expect(HomeAssistantSchema.validate(d.solverConfig, component: "binary_sensor") == [])
        }
    }

    /// The schema is not a rubber stamp: each rule of the documentation it encodes refuses a config breaking it.
    @Test func theSchemaRefusesWhatTheDocumentationRules() {
        func check(_ json: String, _ component: String) -> [String] { HomeAssistantSchema.validate(json, component: component) }
        #expect(check(#"{"state_topic":"a","source_type":"wifi"}"#, "device_tracker")
            == [#"source_type: expected one of ["gps", "router", "bluetooth", "bluetooth_le"]"#])
        #expect(check(#"{"name":"x"}"#, "device_tracker") == ["state_topic: required unless json_attributes_topic is given"])
        #expect(check(#"{"stat_t":"a"}"#, "sensor") == ["stat_t: not a documented key", "state_topic: required"])
        #expect(check(#"{"state_topic":"a","platform":"sensor"}"#, "sensor") == ["platform: not a documented key"],
                "platform belongs to device-based discovery only")
        #expect(check(#"{"state_topic":"a","qos":"1"}"#, "sensor") == ["qos: expected an integer in [0, 1, 2]"])
        #expect(check(#"{"state_topic":"a","qos":3}"#, "sensor") == ["qos: expected an integer in [0, 1, 2]"])
        #expect(check(#"{"state_topic":"a","force_update":1}"#, "sensor") == ["force_update: expected a boolean"])
        #expect(check(#"{"state_topic":"a","expire_after":true}"#, "sensor") == ["expire_after: expected an integer"])
        #expect(check(#"{"state_topic":"a","icon":"door"}"#, "sensor") == ["icon: expected an icon (prefix:name)"])
        #expect(check(#"{"state_topic":"a","entity_category":"config"}"#, "binary_sensor")
            == [#"entity_category: expected one of ["diagnostic"]"#])
        #expect(check(#"{"state_topic":"a","device_class":"enum"}"#, "sensor") == ["options: required by device_class enum"])
        #expect(check(#"{"state_topic":"a","options":["x"],"unit_of_measurement":"m"}"#, "sensor")
            == ["options: needs device_class enum", "options: not with state_class or unit_of_measurement"])
        #expect(check(#"{"state_topic":"a","unique_id":"u","device":{"name":"x"}}"#, "sensor")
            == ["device: needs identifiers or connections"])
        #expect(check(#"{"state_topic":"a","device":{"identifiers":["x"],"mf":"y"}}"#, "sensor")
            == ["device: only works with unique_id", "device.mf: not a documented key"])
        #expect(check(#"{"state_topic":"a","origin":{"sw_version":"1"}}"#, "sensor") == ["origin.name: required"])
        #expect(check(#"{"state_topic":"a","availability_topic":"s","availability":[{"payload_available":"up"}]}"#, "sensor")
            == ["availability and availability_topic: not both", "availability[0].topic: required"])
        #expect(check(#"{"state_topic":"a","name":null,"payload_on":"on"}"#, "sensor") == ["payload_on: not a documented key"])
        #expect(check(#"{"state_topic":"a","default_entity_id":"device_tracker.x"}"#, "sensor")
            == ["default_entity_id: an entity id of the sensor domain"])
        #expect(check("[]", "sensor") == ["not a JSON object"])
    }

    /// What the configs say: topics, availability on the solver's status with its birth and will payloads, one
    /// device per target connected via the solver's device, the room sensor's options.
    @Test func configsNameTheirTopicsDevicesAndAvailability() throws {
        let d = Self.discovery
        let tracker = try Self.object(d.trackerConfig("keys"))
        #expect(tracker["state_topic"] as? String == "bluedot/house/ha/keys/state")
        #expect(tracker["json_attributes_topic"] as? String == "bluedot/house/ha/keys/attributes")
        #expect(tracker["source_type"] as? String == "bluetooth_le")
        #expect(tracker["name"] is NSNull, "the tracker is the device's main entity: it takes the device's name")
        #expect(tracker["qos"] as? Int == 1)
        let availability = try #require(tracker["availability"] as? [[String: Any]])
        #expect(availability.count == 1)
        #expect(availability.first?["topic"] as? String == Self.site.solverStatus)
        #expect(availability.first?["payload_available"] as? String == "online", "the solver's retained birth")
        #expect(availability.first?["payload_not_available"] as? String == "offline", "its farewell and last will")
        let device = try #require(tracker["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["bluedot/house/keys"])
        #expect(device["name"] as? String == "Alice's \"keys\"")
        #expect(device["manufacturer"] as? String == "BlueDot")
        #expect(device["via_device"] as? String == "bluedot/house")

        let sensor = try Self.object(d.sensorConfig("keys"))
        #expect(sensor["state_topic"] as? String == "bluedot/house/ha/keys/room")
        #expect(sensor["name"] as? String == "Room")
        #expect((sensor["device"] as? [String: Any])?["identifiers"] as? [String] == ["bluedot/house/keys"], "one device")
        #expect(sensor["device_class"] as? String == "enum")
        #expect(sensor["options"] as? [String] == ["Hall", "Kitchen", "none"], "each name once, then none")
        let plain = try Self.object(HomeAssistantDiscovery(topics: Self.site).sensorConfig("keys"))
        #expect(plain["device_class"] == nil && plain["options"] == nil, "no room names: a plain text sensor")

        let solver = try Self.object(d.solverConfig)
        #expect(solver["state_topic"] as? String == Self.site.solverStatus)
        #expect(solver["payload_on"] as? String == "online" && solver["payload_off"] as? String == "offline")
        #expect(solver["availability"] == nil, "it reads the status itself: off, not unavailable, when the solver dies")
        #expect((solver["device"] as? [String: Any])?["identifiers"] as? [String] == [d.solverDeviceIdentifier])

        #expect(d.trackerConfigTopic("keys") == "homeassistant/device_tracker/bluedot_house_keys_26940528/config")
        #expect(d.sensorConfigTopic("keys") == "homeassistant/sensor/bluedot_house_keys_26940528_room/config")
        #expect(d.solverConfigTopic == "homeassistant/binary_sensor/bluedot_house_0cfb455b_solver/config")
        var other = d
        other.prefix = "ha/test"
        #expect(other.trackerConfigTopic("keys") == "ha/test/device_tracker/bluedot_house_keys_26940528/config")
        #expect(d.configTopics(of: "keys") == [
            d.trackerConfigTopic("keys"), d.sensorConfigTopic("keys"),
            "homeassistant/sensor/bluedot_house_keys_26940528_accuracy/config",
            "homeassistant/sensor/bluedot_house_keys_26940528_receivers/config"])
        #expect(d.stateTopics(of: "keys") == ["bluedot/house/ha/keys/state", "bluedot/house/ha/keys/room",
                                              "bluedot/house/ha/keys/attributes"])
    }

    /// Unique ids come from the site and the target id alone: pinned values (what Home Assistant already has in its
    /// entity registry must never change), and the same whatever else the configuration says.
    @Test func uniqueIDsAreStableAcrossRestarts() throws {
        #expect(HomeAssistantID.hash("") == "811c9dc5" && HomeAssistantID.hash("a") == "e40c292c"
            && HomeAssistantID.hash("foobar") == "bf9cf968", "FNV-1a 32-bit reference vectors")
        let d = Self.discovery
        #expect(d.objectID(of: "keys") == "bluedot_house_keys_26940528")
        #expect(d.objectID(of: Self.target) == "bluedot_house_ibeacon_f7826da6-4fa2-4e98-8024-bc5b71e0893e_1_7_028dc110")
        #expect(d.sensorObjectID(of: "keys") == "bluedot_house_keys_26940528_room")
        #expect(d.solverObjectID == "bluedot_house_0cfb455b_solver")
        let restarted = HomeAssistantDiscovery(prefix: "elsewhere", topics: SiteTopics(site: "house")!,
                                               names: ["keys": "Other"], roomNames: [:], softwareVersion: "9")
        for target in Self.targets {
            #expect(restarted.objectID(of: target) == d.objectID(of: target))
            #expect(try Self.object(restarted.trackerConfig(target))["unique_id"] as? String == d.objectID(of: target))
            #expect(try Self.object(restarted.sensorConfig(target))["unique_id"] as? String == d.sensorObjectID(of: target))
        }
        let otherSite = HomeAssistantDiscovery(topics: SiteTopics(site: "flat")!)
        #expect(otherSite.objectID(of: "keys") != d.objectID(of: "keys"), "two sites on one Home Assistant")
        #expect(otherSite.deviceIdentifier(of: "keys") != d.deviceIdentifier(of: "keys"))
    }

    /// Object ids keep to `[a-zA-Z0-9_-]`, stay short, and stay apart for ids that clean or cut to the same text;
    /// device identifiers of different sites never meet (`a_b`+`c` against `a`+`b_c`).
    @Test func idsAreSanitisedAndDistinct() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        let d = Self.discovery
        for target in Self.targets + ["a:b", "a_b", "日本", "tab\there"] {
            for id in [d.objectID(of: target), d.sensorObjectID(of: target), d.solverObjectID] {
                #expect(id.allSatisfy(allowed.contains), "\(id)")
                #expect(id.count <= HomeAssistantID.maximumNameLength + 9 + 7)
            }
        }
        #expect(d.objectID(of: "odd \"id\"\\ é").hasPrefix("bluedot_house_odd__id____"))
        #expect(d.objectID(of: "a:b") != d.objectID(of: "a_b"))
        let long = "odd" + String(repeating: "x", count: 200)
        #expect(d.objectID(of: long) != d.objectID(of: long + "y"), "cut at 80 characters, kept apart by the hash")
        #expect(HomeAssistantID.clean("日本") == "__")
        let ab = HomeAssistantDiscovery(topics: SiteTopics(site: "a_b")!), a = HomeAssistantDiscovery(topics: SiteTopics(site: "a")!)
        #expect(ab.deviceIdentifier(of: "c") != a.deviceIdentifier(of: "b_c"))
        #expect(ab.objectID(of: "c") != a.objectID(of: "b_c"))
    }

    /// The allow-list (IDPattern globs, case-insensitive; empty: all), and ids that cannot be one topic level.
    @Test func allowList() {
        let d = Self.discovery
        #expect(d.announces(Self.target) && d.announces("keys") && d.announces("KEYS"))
        #expect(!d.announces("mac:c0:00:00:00:00:01") && !d.announces("keys-2"))
        let all = HomeAssistantDiscovery(topics: Self.site)
        #expect(all.announces("anything") && all.announces("mac:c0:00:00:00:00:01"))
        #expect(!all.announces("a/b") && !all.announces("a+") && !all.announces("#") && !all.announces(""))
    }

    /// Entity ids come from the names, written as `object_id` (Home Assistant up to 2025.9) and as
    /// `default_entity_id` (from 2025.10); without a name, from the target id. Home Assistant's slugify rules.
    @Test func entityIDsComeFromNames() throws {
        let d = Self.discovery
        let tracker = try Self.object(d.trackerConfig("keys"))
        #expect(tracker["object_id"] as? String == "alice_s_keys")
        #expect(tracker["default_entity_id"] as? String == "device_tracker.alice_s_keys")
        let room = try Self.object(d.sensorConfig("keys"))
        #expect(room["object_id"] as? String == "alice_s_keys_room")
        #expect(room["default_entity_id"] as? String == "sensor.alice_s_keys_room")
        let accuracy = try Self.object(d.measurementConfig("keys", .accuracy))
        #expect(accuracy["default_entity_id"] as? String == "sensor.alice_s_keys_accuracy")
        let unnamed = try Self.object(d.trackerConfig("ibeacon:F7826DA6-4fa2:1:7"))
        #expect(unnamed["default_entity_id"] as? String == "device_tracker.ibeacon_f7826da6_4fa2_1_7")
        #expect(HomeAssistantID.slug("  Bob's   Tag #2 ") == "bob_s_tag_2")
        #expect(HomeAssistantID.slug("Küche") == "k_che", "no transliteration table: non-ASCII is a separator")
        #expect(HomeAssistantID.slug("日本") == "unknown" && HomeAssistantID.slug("") == "unknown")
        #expect(tracker["unique_id"] as? String == d.objectID(of: "keys"), "unique ids do not follow the names")
    }

    /// The measurement sensors read the attributes topic: the accuracy a distance in metres, the receivers a count,
    /// both measurements (long-term statistics, a line graph) in the diagnostic category.
    @Test func measurementSensorsCarryUnits() throws {
        let d = Self.discovery
        let accuracy = try Self.object(d.measurementConfig("keys", .accuracy))
        #expect(accuracy["state_topic"] as? String == d.attributesTopic("keys"))
        #expect(accuracy["value_template"] as? String == "{{ value_json.accuracy_m }}")
        #expect(accuracy["unit_of_measurement"] as? String == "m" && accuracy["device_class"] as? String == "distance")
        #expect(accuracy["state_class"] as? String == "measurement" && accuracy["name"] as? String == "Accuracy")
        let receivers = try Self.object(d.measurementConfig("keys", .receivers))
        #expect(receivers["value_template"] as? String == "{{ value_json.receivers }}")
        #expect(receivers["unit_of_measurement"] == nil && receivers["state_class"] as? String == "measurement")
        let l = Location(timestamp: 1, targetID: "keys", x: 0, y: 0, horizontalAccuracyMeters: 2.25, anchorCount: 4)
        let attributes = try Self.object(d.attributes(l))
        #expect(attributes["accuracy_m"] as? Double == 2.25 && attributes["receivers"] as? Int == 4,
                "the attributes the templates read")
    }

    /// Friendly names name the device (the tracker takes it, the sensor shows "<name> Room"); the model follows
    /// the id's scheme.
    @Test func friendlyNamesAndModels() throws {
        let d = Self.discovery
        #expect(d.name(of: "keys") == "Alice's \"keys\"" && d.name(of: Self.target) == Self.target)
        let device = try #require(try Self.object(d.sensorConfig(Self.target))["device"] as? [String: Any])
        #expect(device["name"] as? String == Self.target)
        #expect(device["model"] as? String == "iBeacon")
        #expect(HomeAssistantDiscovery.model(of: "eddystone:0102030405060708090a:0b0c0d0e0f10") == "Eddystone-UID")
        #expect(HomeAssistantDiscovery.model(of: "altbeacon:00:1:2") == "AltBeacon")
        #expect(HomeAssistantDiscovery.model(of: "mac:c0:00:00:00:00:01") == "Bluetooth LE device")
        #expect(HomeAssistantDiscovery.model(of: "keys") == "Bluetooth LE tag")
    }

    /// States: the room sensor reads the room's name (its id without one), `none` outside every room. Attributes:
    /// snake_case, pinned text; coordinates for Home Assistant's map only with a geographic origin, and not while
    /// away.
    @Test func statesAndAttributes() throws {
        let d = Self.discovery
        var l = Location(timestamp: 10, targetID: "keys", x: 1.23456, y: 2, floor: 0, horizontalAccuracyMeters: 1.5,
            anchorCount: 3, room: "kitchen", roomProbability: 0.8)
        #expect(d.roomState(l) == "Kitchen")
        #expect(d.attributes(l)
            == #"{"x_m":1.23,"y_m":2.00,"floor":0,"accuracy_m":1.50,"room":"kitchen","room_probability":0.800,"receivers":3,"last_known":false}"#)
        l.room = "cellar"
        #expect(d.roomState(l) == "cellar", "a room without a name shows its id")
        l.room = nil
        l.roomProbability = nil
        l.floor = nil
        l.lastKnown = true
        l.latitude = 52.1
        l.longitude = 21.2
        #expect(d.roomState(l) == "none")
        #expect(d.attributes(l)
            == #"{"x_m":1.23,"y_m":2.00,"accuracy_m":1.50,"room":null,"receivers":3,"last_known":true,"latitude":52.1000000,"longitude":21.2000000,"gps_accuracy":1.5}"#)
        let attributes = try Self.object(d.attributes(l))
        #expect(attributes["latitude"] as? Double == 52.1 && attributes["gps_accuracy"] as? Double == 1.5)
        l.room = "kitchen"
        #expect(d.attributes(l, away: true)
            == #"{"x_m":1.23,"y_m":2.00,"accuracy_m":1.50,"room":null,"receivers":0,"last_known":true}"#)
        #expect(HomeAssistantDiscovery.home == "home" && HomeAssistantDiscovery.notHome == "not_home")
    }
}
