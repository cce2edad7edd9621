import Foundation
import LocationDisplay
import Testing

@testable import Site

/// The keys Home Assistant documents for MQTT discovery configs, with their types, written from its documentation
/// (home-assistant.io: integrations/device_tracker.mqtt, integrations/sensor.mqtt, integrations/mqtt "MQTT
/// Discovery": the device and origin mappings, the availability list). Full key names only: BlueDot sends no
/// abbreviations.
enum HomeAssistantSchema {
    enum Kind {
        case string, integer, boolean, stringOrNull, list, mapping
        case oneOf([String])
    }

    /// Keys every MQTT entity takes (availability, device, origin, naming, QoS, attributes).
    static let entity: [String: Kind] = [
        "availability": .list, "availability_mode": .oneOf(["all", "any", "latest"]), "availability_template": .string,
        "availability_topic": .string, "device": .mapping, "enabled_by_default": .boolean, "encoding": .string,
        "entity_category": .oneOf(["config", "diagnostic"]), "entity_picture": .string, "icon": .string,
        "json_attributes_template": .string, "json_attributes_topic": .string, "name": .stringOrNull,
        "object_id": .string, "default_entity_id": .string, "origin": .mapping,
        "payload_available": .string, "payload_not_available": .string, "qos": .oneOf(["0", "1", "2"]),
        "unique_id": .string, "value_template": .string, "platform": .oneOf(["mqtt"]),
    ]
    /// `device_tracker` (device_tracker.mqtt).
    static let deviceTracker = entity.merging([
        "state_topic": .string, "payload_home": .string, "payload_not_home": .string, "payload_reset": .string,
        "source_type": .oneOf(["gps", "router", "bluetooth", "bluetooth_le"]),
    ]) { a, _ in a }
    /// `sensor` (sensor.mqtt); `state_topic` is required.
    static let sensor = entity.merging([
        "state_topic": .string, "device_class": .string, "expire_after": .integer, "force_update": .boolean,
        "last_reset_value_template": .string, "options": .list, "state_class": .string,
        "suggested_display_precision": .integer, "unit_of_measurement": .string,
    ]) { a, _ in a }
    /// The `device` mapping: at least one of identifiers and connections.
    static let device: [String: Kind] = [
        "configuration_url": .string, "connections": .list, "hw_version": .string, "identifiers": .list,
        "manufacturer": .string, "model": .string, "model_id": .string, "name": .string, "serial_number": .string,
        "suggested_area": .string, "sw_version": .string, "via_device": .string,
    ]
    /// The `origin` mapping: `name` is required.
    static let origin: [String: Kind] = ["name": .string, "sw_version": .string, "support_url": .string]
    /// An item of the `availability` list: `topic` is required.
    static let availability: [String: Kind] = [
        "topic": .string, "payload_available": .string, "payload_not_available": .string, "value_template": .string,
    ]

    /// What is wrong with `object` under `schema` (empty: nothing).
    static func problems(_ object: [String: Any], _ schema: [String: Kind], path: String = "") -> [String] {
        var found: [String] = []
        for (key, value) in object {
            guard let kind = schema[key] else {
                found.append("\(path)\(key): not a documented key")
                continue
            }
            let ok: Bool
            switch kind {
            case .string: ok = value is String
            case .integer: ok = value is Int
            case .boolean: ok = value is Bool
            case .stringOrNull: ok = value is String || value is NSNull
            case .list: ok = value is [Any]
            case .mapping: ok = value is [String: Any]
            case .oneOf(let allowed): ok = allowed.contains("\(value)")
            }
            if !ok { found.append("\(path)\(key): \(value) is not \(kind)") }
        }
        return found
    }

    /// Everything wrong with a discovery config of `component`.
    static func validate(_ json: String, component: String) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return ["not a JSON object"]
        }
        var found = problems(object, component == "sensor" ? sensor : deviceTracker)
        if component == "sensor", object["state_topic"] == nil { found.append("state_topic: required for a sensor") }
        if object["device"] != nil, object["unique_id"] == nil { found.append("device: needs unique_id") }
        if let d = object["device"] as? [String: Any] {
            found += problems(d, device, path: "device.")
            if d["identifiers"] == nil && d["connections"] == nil { found.append("device: identifiers or connections") }
        }
        if let o = object["origin"] as? [String: Any] {
            found += problems(o, origin, path: "origin.")
            if o["name"] == nil { found.append("origin.name: required") }
        }
        if object["availability"] != nil && object["availability_topic"] != nil {
            found.append("availability and availability_topic: not both")
        }
        for (i, item) in (object["availability"] as? [Any] ?? []).enumerated() {
            guard let item = item as? [String: Any] else {
                found.append("availability[\(i)]: not a mapping")
                continue
            }
            found += problems(item, availability, path: "availability[\(i)].")
            if item["topic"] == nil { found.append("availability[\(i)].topic: required") }
        }
        return found
    }
}

@Suite struct HomeAssistantDiscoveryTests {
    static let discovery = HomeAssistantDiscovery(
        topics: SiteTopics(site: "house")!, allow: [IDPattern("ibeacon:*")!, IDPattern("keys")!],
        names: ["keys": "Alice's keys"], roomNames: ["kitchen": "Kitchen"])
    static let target = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"

    /// Both configs of two targets pass the schema written from Home Assistant's documentation, and the schema
    /// itself catches what it should.
    @Test func everyConfigFollowsTheDocumentedSchema() {
        for target in [Self.target, "keys"] {
            #expect(HomeAssistantSchema.validate(Self.discovery.trackerConfig(target), component: "device_tracker") == [])
            #expect(HomeAssistantSchema.validate(Self.discovery.sensorConfig(target), component: "sensor") == [])
        }
        #expect(HomeAssistantSchema.validate(#"{"state_topic":"a","source_type":"wifi"}"#, component: "device_tracker")
            == ["source_type: wifi is not oneOf([\"gps\", \"router\", \"bluetooth\", \"bluetooth_le\"])"])
        #expect(HomeAssistantSchema.validate(#"{"stat_t":"a"}"#, component: "sensor").count == 2)
        #expect(HomeAssistantSchema.validate(#"{"state_topic":"a","device":{"name":"x"}}"#, component: "sensor").count == 2)
    }

    /// What the configs say: topics, availability on the solver's status, device info, source type.
    @Test func configsNameTheirTopicsDeviceAndAvailability() throws {
        let d = Self.discovery
        let tracker = try #require(try JSONSerialization.jsonObject(with: Data(d.trackerConfig("keys").utf8)) as? [String: Any])
        #expect(tracker["state_topic"] as? String == "bluedot/house/ha/keys/state")
        #expect(tracker["json_attributes_topic"] as? String == "bluedot/house/ha/keys/attributes")
        #expect(tracker["source_type"] as? String == "bluetooth_le")
        #expect(tracker["name"] is NSNull, "the tracker is the device's main entity: it takes the device's name")
        let availability = try #require((tracker["availability"] as? [[String: Any]])?.first)
        #expect(availability["topic"] as? String == "bluedot/house/status")
        #expect(availability["payload_available"] as? String == "online")
        let device = try #require(tracker["device"] as? [String: Any])
        #expect(device["name"] as? String == "Alice's keys" && device["manufacturer"] as? String == "BlueDot")
        #expect(device["identifiers"] as? [String] == ["bluedot_house_keys"])
        let sensor = try #require(try JSONSerialization.jsonObject(with: Data(d.sensorConfig("keys").utf8)) as? [String: Any])
        #expect(sensor["state_topic"] as? String == "bluedot/house/ha/keys/room")
        #expect((sensor["device"] as? [String: Any])?["identifiers"] as? [String] == ["bluedot_house_keys"], "one device")
        #expect(d.trackerConfigTopic("keys").hasPrefix("homeassistant/device_tracker/bluedot_house_keys_"))
        #expect(d.sensorConfigTopic("keys").hasSuffix("_room/config"))
    }

    /// Object ids keep to Home Assistant's characters, are the same every time (restarts) and stay apart for ids
    /// that clean up to the same text.
    @Test func objectIDsAreCleanStableAndDistinct() {
        let d = Self.discovery
        let id = d.objectID(of: Self.target)
        #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        #expect(id == "bluedot_house_ibeacon_f7826da6-4fa2-4e98-8024-bc5b71e0893e_1_7_" + id.suffix(8))
        #expect(HomeAssistantDiscovery(topics: SiteTopics(site: "house")!).objectID(of: Self.target) == id)
        #expect(d.objectID(of: "a:b") != d.objectID(of: "a_b"))
        #expect(HomeAssistantDiscovery(topics: SiteTopics(site: "flat")!).objectID(of: Self.target) != id)
    }

    /// States and attributes: the room's name or not_home / none; coordinates only with an origin.
    @Test func statesAndAttributes() throws {
        let d = Self.discovery
        var l = Location(x: 1.23456, y: 2, floor: 0, timestamp: 10, horizontalAccuracyMeters: 1.5, targetID: "keys",
                         room: "kitchen", roomProbability: 0.8)
        #expect(d.trackerState(l) == "Kitchen" && d.roomState(l) == "Kitchen")
        #expect(d.attributes(l) == #"{"x":1.235,"y":2.000,"floor":0,"accuracy":1.50,"room":"kitchen","roomProbability":0.800,"lastKnown":false}"#)
        l.room = "hall"
        #expect(d.trackerState(l) == "hall", "a room without a name shows its id")
        l.room = nil
        l.latitude = 52.1
        l.longitude = 21.2
        #expect(d.trackerState(l) == "not_home" && d.roomState(l) == "none")
        let attributes = try #require(try JSONSerialization.jsonObject(with: Data(d.attributes(l).utf8)) as? [String: Any])
        #expect(attributes["latitude"] as? Double == 52.1 && attributes["gps_accuracy"] as? Double == 1.5)
        #expect(attributes["room"] is NSNull)
    }

    /// The allow-list: only matching targets are announced (no list: all).
    @Test func allowList() {
        #expect(Self.discovery.announces(Self.target) && Self.discovery.announces("keys"))
        #expect(!Self.discovery.announces("mac:c0:00:00:00:00:01"))
        #expect(HomeAssistantDiscovery(topics: SiteTopics(site: "s")!).announces("anything"))
    }
}
