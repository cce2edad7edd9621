import BlueDotCore
import LocationDisplay

/// What a site's solver tells Home Assistant through MQTT discovery (https://www.home-assistant.io/integrations/mqtt/,
/// "MQTT Discovery"): per target a `device_tracker` and a room `sensor`, both on one device per target, their
/// availability tied to the solver's status topic (retained `online`, last will `offline`).
///
/// Topics (`<prefix>` is the discovery prefix, default `homeassistant`; `<object>` is `objectID(of:)`):
/// - `<prefix>/device_tracker/<object>/config` and `<prefix>/sensor/<object>_room/config`: the configs, retained;
///   an empty retained message clears one (a forgotten target);
/// - `bluedot/<site>/ha/<target>/state`: the tracker's state, the room's name or `not_home`;
/// - `bluedot/<site>/ha/<target>/room`: the sensor's state, the room's name or `none`;
/// - `bluedot/<site>/ha/<target>/attributes`: the tracker's attributes (x, y, floor, accuracy, room,
///   roomProbability, lastKnown; latitude, longitude and gps_accuracy when the venue has an origin).
///
/// Unique ids and object ids derive from the site and the target id only, so they stay the same across restarts;
/// object ids keep to Home Assistant's `[a-zA-Z0-9_-]` and end in a hash of the raw id, so two ids that clean up to
/// the same text stay apart.
public struct HomeAssistantDiscovery: Sendable {
    /// The discovery prefix Home Assistant listens on.
    public var prefix: String
    /// The site's topics (its status topic is the availability).
    public var topics: SiteTopics
    /// Which targets are announced; empty: every one.
    public var allow: [IDPattern]
    /// Friendly names by target id (default: the id).
    public var names: [String: String]
    /// Room names by room id (default: the id).
    public var roomNames: [String: String]
    /// The software version announced in the device info and origin.
    public var softwareVersion: String

    /// Creates the discovery of a site.
    public init(prefix: String = "homeassistant", topics: SiteTopics, allow: [IDPattern] = [],
                names: [String: String] = [:], roomNames: [String: String] = [:],
                softwareVersion: String = HomeAssistantDiscovery.defaultSoftwareVersion) {
        self.prefix = prefix
        self.topics = topics
        self.allow = allow
        self.names = names
        self.roomNames = roomNames
        self.softwareVersion = softwareVersion
    }

    /// The version BlueDot announces.
    public static let defaultSoftwareVersion = "0.12"

    /// Whether `target` is announced.
    public func announces(_ target: String) -> Bool { allow.isEmpty || IDPattern.allows(allow, target) }

    /// The object id of a target: `bluedot_<site>_<target>` cut to Home Assistant's characters, then `_` and eight
    /// hex digits of a 32-bit FNV-1a hash of `<site>/<target>`.
    public func objectID(of target: String) -> String {
        let clean = ("bluedot_" + topics.site + "_" + target).map { c -> Character in
            c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") ? c : "_"
        }
        var hash: UInt32 = 2_166_136_261
        for byte in (topics.site + "/" + target).utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        let hex = String(hash, radix: 16)
        return String(clean.prefix(80)) + "_" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// The tracker's discovery topic.
    public func trackerConfigTopic(_ target: String) -> String { "\(prefix)/device_tracker/\(objectID(of: target))/config" }
    /// The room sensor's discovery topic.
    public func sensorConfigTopic(_ target: String) -> String { "\(prefix)/sensor/\(objectID(of: target))_room/config" }
    /// The tracker's state topic.
    public func stateTopic(_ target: String) -> String { "\(topics.root)/ha/\(target)/state" }
    /// The room sensor's state topic.
    public func roomTopic(_ target: String) -> String { "\(topics.root)/ha/\(target)/room" }
    /// The tracker's attributes topic.
    public func attributesTopic(_ target: String) -> String { "\(topics.root)/ha/\(target)/attributes" }

    /// The target's friendly name.
    public func name(of target: String) -> String { names[target] ?? target }

    /// The device tracker's config (JSON).
    public func trackerConfig(_ target: String) -> String {
        let object = objectID(of: target)
        return "{" + common(target, uniqueID: object, entityName: nil) + ","
            + "\"state_topic\":\(JSONText.quoted(stateTopic(target))),"
            + "\"json_attributes_topic\":\(JSONText.quoted(attributesTopic(target))),"
            + "\"payload_home\":\"home\",\"payload_not_home\":\"not_home\","
            + "\"source_type\":\"bluetooth_le\",\"icon\":\"mdi:map-marker-radius\"}"
    }

    /// The room sensor's config (JSON).
    public func sensorConfig(_ target: String) -> String {
        "{" + common(target, uniqueID: objectID(of: target) + "_room", entityName: "Room") + ","
            + "\"state_topic\":\(JSONText.quoted(roomTopic(target))),\"icon\":\"mdi:door\"}"
    }

    /// The keys both configs share: names, ids, availability, device and origin.
    private func common(_ target: String, uniqueID: String, entityName: String?) -> String {
        let device = "{\"identifiers\":[\(JSONText.quoted("bluedot_" + topics.site + "_" + target))],"
            + "\"name\":\(JSONText.quoted(name(of: target))),\"manufacturer\":\"BlueDot\","
            + "\"model\":\"Bluetooth LE tag\",\"sw_version\":\(JSONText.quoted(softwareVersion))}"
        return "\"name\":\(entityName.map(JSONText.quoted) ?? "null"),"
            + "\"unique_id\":\(JSONText.quoted(uniqueID)),"
            + "\"availability\":[{\"topic\":\(JSONText.quoted(topics.solverStatus)),"
            + "\"payload_available\":\"online\",\"payload_not_available\":\"offline\"}],"
            + "\"device\":\(device),"
            + "\"origin\":{\"name\":\"BlueDot\",\"sw_version\":\(JSONText.quoted(softwareVersion))},\"qos\":1"
    }

    /// The tracker's state for a location: its room's name, or `not_home`.
    public func trackerState(_ location: Location) -> String {
        location.room.map { roomNames[$0] ?? $0 } ?? "not_home"
    }

    /// The sensor's state for a location: its room's name, or `none`.
    public func roomState(_ location: Location) -> String {
        location.room.map { roomNames[$0] ?? $0 } ?? "none"
    }

    /// The tracker's attributes for a location (JSON).
    public func attributes(_ location: Location) -> String {
        var text = "{\"x\":\(JSONText.fixed(location.x, decimals: 3)),\"y\":\(JSONText.fixed(location.y, decimals: 3))"
        if let floor = location.floor { text += ",\"floor\":\(floor)" }
        text += ",\"accuracy\":\(JSONText.fixed(location.horizontalAccuracyMeters, decimals: 2))"
        text += ",\"room\":" + (location.room.map(JSONText.quoted) ?? "null")
        if let p = location.roomProbability { text += ",\"roomProbability\":\(JSONText.fixed(p, decimals: 3))" }
        text += ",\"lastKnown\":\(location.lastKnown)"
        if let lat = location.latitude, let lon = location.longitude {
            text += ",\"latitude\":\(JSONText.fixed(lat, decimals: 7)),\"longitude\":\(JSONText.fixed(lon, decimals: 7))"
            text += ",\"gps_accuracy\":\(JSONText.fixed(location.horizontalAccuracyMeters, decimals: 1))"
        }
        return text + "}"
    }
}
