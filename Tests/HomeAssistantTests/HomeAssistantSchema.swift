import Foundation

/// The discovery configs Home Assistant documents, as a table of keys, types, allowed values and rules, written from
/// its documentation (github.com/home-assistant/home-assistant.io, `source/_integrations/`):
/// `device_tracker.mqtt.markdown`, `sensor.mqtt.markdown`, `binary_sensor.mqtt.markdown` (each component's keys,
/// the `device` and `availability` mappings) and `mqtt.markdown` ("Discovery topic", "Discovery payload": the
/// `origin` mapping, `platform` only in device-based discovery; "Naming of MQTT Entities": a null `name`).
///
/// Home Assistant ignores keys it does not know, so a misspelt key would go unnoticed there: here every key must be
/// documented for its component. Full names only (BlueDot sends no abbreviations).
enum HomeAssistantSchema {
    /// A key's documented type.
    indirect enum Kind: Sendable, CustomStringConvertible {
        case string, boolean, integer, list, mapping
        /// `name`: a string, or null for the device's main entity.
        case stringOrNull
        /// `identifiers`: a string or a list of strings.
        case stringOrList
        /// `icon`: `prefix:name`, such as `mdi:door`.
        case icon
        /// One of the documented values.
        case oneOf([String])
        /// An integer among the documented values.
        case integerIn([Int])
        /// A list whose items are all `Kind`.
        case listOf(Kind)

        var description: String {
            switch self {
            case .string: "a string"
            case .boolean: "a boolean"
            case .integer: "an integer"
            case .list: "a list"
            case .mapping: "a mapping"
            case .stringOrNull: "a string or null"
            case .stringOrList: "a string or a list"
            case .icon: "an icon (prefix:name)"
            case .oneOf(let values): "one of \(values)"
            case .integerIn(let values): "an integer in \(values)"
            case .listOf(let kind): "a list of \(kind)"
            }
        }

        func accepts(_ value: Any) -> Bool {
            switch self {
            case .string: return value is String
            case .boolean: return isBoolean(value)
            case .integer: return isInteger(value)
            case .list: return value is [Any]
            case .mapping: return value is [String: Any]
            case .stringOrNull: return value is String || value is NSNull
            case .stringOrList: return value is String || Kind.listOf(.string).accepts(value)
            case .icon: return (value as? String).map { $0.split(separator: ":").count == 2 } ?? false
            case .oneOf(let values): return (value as? String).map(values.contains) ?? false
            case .integerIn(let values): return isInteger(value) && values.contains((value as? NSNumber)?.intValue ?? -1)
            case .listOf(let kind): return (value as? [Any]).map { $0.allSatisfy(kind.accepts) } ?? false
            }
        }
    }

    /// Keys every MQTT entity page documents: availability (list and single topic), device, naming, ids (`object_id`
    /// up to 2025.9, `default_entity_id` from 2025.10), QoS, the attributes topic, and `origin` (integrations/mqtt,
    /// "Discovery payload").
    static let entity: [String: Kind] = [
        "availability": .list, "availability_mode": .oneOf(["all", "any", "latest"]), "availability_template": .string,
        "availability_topic": .string, "default_entity_id": .string, "device": .mapping, "icon": .icon,
        "json_attributes_template": .string, "json_attributes_topic": .string, "name": .stringOrNull,
        "object_id": .string, "origin": .mapping, "payload_available": .string, "payload_not_available": .string,
        "qos": .integerIn([0, 1, 2]), "unique_id": .string, "value_template": .string,
    ]
    /// device_tracker.mqtt: the entity keys and the tracker's own (no entity category or picture is documented).
    static let deviceTracker = entity.merging([
        "state_topic": .string, "payload_home": .string, "payload_not_home": .string, "payload_reset": .string,
        "source_type": .oneOf(["gps", "router", "bluetooth", "bluetooth_le"]),
    ]) { a, _ in a }
    /// Keys sensor.mqtt and binary_sensor.mqtt share beyond the entity's; "the entity category must be
    /// `diagnostic` for sensors".
    static let sensorCommon = entity.merging([
        "state_topic": .string, "device_class": .string, "enabled_by_default": .boolean, "encoding": .string,
        "entity_category": .oneOf(["diagnostic"]), "entity_picture": .string, "expire_after": .integer,
        "force_update": .boolean,
    ]) { a, _ in a }
    /// sensor.mqtt.
    static let sensor = sensorCommon.merging([
        "last_reset_value_template": .string, "options": .listOf(.string), "state_class": .string,
        "suggested_display_precision": .integer, "unit_of_measurement": .string,
    ]) { a, _ in a }
    /// binary_sensor.mqtt.
    static let binarySensor = sensorCommon.merging([
        "off_delay": .integer, "payload_off": .string, "payload_on": .string,
    ]) { a, _ in a }
    /// The `device` mapping (the keys of the three pages together).
    static let device: [String: Kind] = [
        "configuration_url": .string, "connections": .listOf(.list), "hw_version": .string,
        "identifiers": .stringOrList, "manufacturer": .string, "model": .string, "model_id": .string, "name": .string,
        "serial_number": .string, "suggested_area": .string, "sw_version": .string, "via_device": .string,
    ]
    /// The `origin` mapping.
    static let origin: [String: Kind] = ["name": .string, "sw_version": .string, "support_url": .string]
    /// An item of the `availability` list.
    static let availability: [String: Kind] = [
        "topic": .string, "payload_available": .string, "payload_not_available": .string, "value_template": .string,
    ]

    /// The key table of a component.
    static func keys(of component: String) -> [String: Kind]? {
        switch component {
        case "device_tracker": deviceTracker
        case "sensor": sensor
        case "binary_sensor": binarySensor
        default: nil
        }
    }

    /// What is wrong with `object` under `schema`, keys sorted (empty: nothing).
    static func problems(_ object: [String: Any], _ schema: [String: Kind], path: String = "") -> [String] {
        object.keys.sorted().compactMap { key in
            guard let kind = schema[key] else { return "\(path)\(key): not a documented key" }
            return kind.accepts(object[key]!) ? nil : "\(path)\(key): expected \(kind)"
        }
    }

    /// Everything wrong with a discovery config of `component` (`device_tracker`, `sensor`, `binary_sensor`).
    static func validate(_ json: String, component: String) -> [String] {
        guard let schema = keys(of: component) else { return ["\(component): not a component BlueDot announces"] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return ["not a JSON object"]
        }
        var found = problems(object, schema)
        func has(_ key: String) -> Bool { object[key] != nil }
        switch component {
        case "device_tracker":
            if !has("state_topic") && !has("json_attributes_topic") {
                found.append("state_topic: required unless json_attributes_topic is given")
            }
        default:
            if !has("state_topic") { found.append("state_topic: required") }
        }
        if component == "sensor" {
            let isEnum = object["device_class"] as? String == "enum"
            if isEnum && !has("options") { found.append("options: required by device_class enum") }
            if has("options") {
                if !isEnum { found.append("options: needs device_class enum") }
                if (object["options"] as? [Any])?.isEmpty == true { found.append("options: must not be empty") }
                if has("state_class") || has("unit_of_measurement") {
                    found.append("options: not with state_class or unit_of_measurement")
                }
            }
        }
        if let id = object["default_entity_id"] as? String, !id.hasPrefix(component + ".") {
            found.append("default_entity_id: an entity id of the \(component) domain")
        }
        if has("availability") && has("availability_topic") {
            found.append("availability and availability_topic: not both")
        }
        if has("device") && !has("unique_id") { found.append("device: only works with unique_id") }
        if let device = object["device"] as? [String: Any] {
            found += problems(device, Self.device, path: "device.")
            if device["identifiers"] == nil && device["connections"] == nil {
                found.append("device: needs identifiers or connections")
            }
        }
        if let origin = object["origin"] as? [String: Any] {
            found += problems(origin, Self.origin, path: "origin.")
            if origin["name"] == nil { found.append("origin.name: required") }
        }
        for (i, item) in (object["availability"] as? [Any] ?? []).enumerated() {
            guard let item = item as? [String: Any] else {
                found.append("availability[\(i)]: expected a mapping")
                continue
            }
            found += problems(item, availability, path: "availability[\(i)].")
            if item["topic"] == nil { found.append("availability[\(i)].topic: required") }
        }
        return found
    }

    /// Whether `value` is a JSON boolean: Foundation decodes `true` and `1` both as NSNumber (and both pass `is Bool`),
    /// but a boolean's class is the one of `NSNumber(value: true)`.
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return type(of: number) == type(of: NSNumber(value: true))
    }

    /// Whether `value` is a JSON integer: a number, not a boolean, not written with a fraction or exponent.
    static func isInteger(_ value: Any) -> Bool {
        guard let number = value as? NSNumber, !isBoolean(value) else { return false }
        let type = String(cString: number.objCType)
        return type != "d" && type != "f"
    }
}
