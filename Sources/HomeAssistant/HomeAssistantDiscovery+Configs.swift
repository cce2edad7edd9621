import Site

/// The discovery configs, one JSON object per entity, with the full key names of Home Assistant's documentation
/// (no abbreviations): integrations/device_tracker.mqtt, sensor.mqtt, binary_sensor.mqtt, and integrations/mqtt for
/// the `device`, `origin` and `availability` mappings.
extension HomeAssistantDiscovery {
    /// The room sensor's state outside every room.
    public static let noRoom = "none"

    /// The tracker's config: the device's main entity (`name` null: it takes the device's name), state on
    /// `stateTopic` (`home` / `not_home`), the fix as attributes on `attributesTopic`, `source_type` `bluetooth_le`.
    /// `payload_home` and `payload_not_home` keep their documented defaults (`home`, `not_home`), so they are not
    /// sent.
    public func trackerConfig(_ target: String) -> String {
        var config = entity(target, name: nil, uniqueID: objectID(of: target), component: "device_tracker", suffix: "")
        config.string("state_topic", stateTopic(target))
        config.string("json_attributes_topic", attributesTopic(target))
        config.string("source_type", "bluetooth_le")
        return finish(config, device: device(of: target))
    }

    /// The room sensor's config: named "Room" (Home Assistant shows "<device> Room"). With room names known it is an
    /// `enum` sensor whose options are every room's name and `none`, so automations can offer them.
    public func sensorConfig(_ target: String) -> String {
        var config = entity(target, name: "Room", uniqueID: sensorObjectID(of: target), component: "sensor",
                            suffix: "_room")
        config.string("state_topic", roomTopic(target))
        config.string("icon", "mdi:door")
        if !roomNames.isEmpty {
            config.string("device_class", "enum")
            config.strings("options", roomOptions)
        }
        return finish(config, device: device(of: target))
    }

    /// A value of the fix worth a graph, as a diagnostic sensor of its own read from the attributes topic (so it
    /// costs no message of its own): the accuracy radius in metres, and how many receivers heard the target.
    public enum Measurement: String, CaseIterable, Sendable {
        /// The 68% accuracy radius, metres (attribute `accuracy_m`).
        case accuracy
        /// Receivers (anchors) whose reports made the fix (attribute `receivers`).
        case receivers

        /// The entity's name (Home Assistant shows "<device> <name>").
        var name: String {
            switch self {
            case .accuracy: "Accuracy"
            case .receivers: "Receivers"
            }
        }

        /// The attribute the sensor reads.
        var attribute: String {
            switch self {
            case .accuracy: "accuracy_m"
            case .receivers: "receivers"
            }
        }
    }

    /// A measurement sensor's config: `state_class` `measurement` (Home Assistant keeps long-term statistics and
    /// draws a line), in the diagnostic category; the accuracy is a `distance` in metres.
    public func measurementConfig(_ target: String, _ measurement: Measurement) -> String {
        var config = entity(target, name: measurement.name, uniqueID: measurementObjectID(of: target, measurement),
                            component: "sensor", suffix: "_" + measurement.rawValue)
        config.string("state_topic", attributesTopic(target))
        config.string("value_template", "{{ value_json.\(measurement.attribute) }}")
        config.string("state_class", "measurement")
        config.string("entity_category", "diagnostic")
        switch measurement {
        case .accuracy:
            config.string("device_class", "distance")
            config.string("unit_of_measurement", "m")
            config.integer("suggested_display_precision", 1)
        case .receivers:
            config.string("icon", "mdi:access-point")
        }
        return finish(config, device: device(of: target))
    }

    /// The solver's config: a `connectivity` binary sensor reading the status topic itself (`online` on,
    /// `offline` off), so it has no availability of its own and shows the solver down rather than unavailable.
    public var solverConfig: String {
        var config = HomeAssistantJSON()
        config.stringOrNull("name", nil)
        config.string("unique_id", solverObjectID)
        config.string("state_topic", topics.solverStatus)
        config.string("payload_on", "online")
        config.string("payload_off", "offline")
        config.string("device_class", "connectivity")
        config.string("entity_category", "diagnostic")
        var device = HomeAssistantJSON()
        device.strings("identifiers", [solverDeviceIdentifier])
        device.string("name", "BlueDot \(topics.site)")
        device.string("manufacturer", "BlueDot")
        device.string("model", "Site solver")
        device.string("sw_version", softwareVersion)
        return finish(config, device: device)
    }

    /// The room sensor's options: every room's name once, sorted, then `none`.
    public var roomOptions: [String] {
        Array(Set(roomNames.values)).sorted() + (roomNames.values.contains(Self.noRoom) ? [] : [Self.noRoom])
    }

    /// The device model announced for a target, from its id's scheme (docs/formats.md, "Beacon identifiers").
    public static func model(of target: String) -> String {
        let scheme = target.lowercased().prefix { $0 != ":" }
        switch scheme {
        case "ibeacon": return "iBeacon"
        case "eddystone": return "Eddystone-UID"
        case "altbeacon": return "AltBeacon"
        case "mac": return "Bluetooth LE device"
        default: return "Bluetooth LE tag"
        }
    }

    /// A target's device: identifiers, name, maker, model, version, and the solver it is connected through.
    private func device(of target: String) -> HomeAssistantJSON {
        var device = HomeAssistantJSON()
        device.strings("identifiers", [deviceIdentifier(of: target)])
        device.string("name", name(of: target))
        device.string("manufacturer", "BlueDot")
        device.string("model", Self.model(of: target))
        device.string("sw_version", softwareVersion)
        device.string("via_device", solverDeviceIdentifier)
        return device
    }

    /// The keys a target's entities start with: name, unique id, the entity id asked for, availability on the
    /// solver's status topic.
    ///
    /// The entity id comes from the target's name (`entitySlug(of:)` and `suffix`), written both ways Home Assistant
    /// has read it: `object_id` (up to 2025.9; deprecated in 2025.10) and `default_entity_id`, the whole entity id
    /// (from 2025.10). Each version drops the key it does not know (discovery schemas remove extra keys). Home
    /// Assistant uses it when it first registers the entity; afterwards its entity registry keeps the id, a user's
    /// rename included, by `unique_id`.
    private func entity(_ target: String, name: String?, uniqueID: String, component: String,
                        suffix: String) -> HomeAssistantJSON {
        var config = HomeAssistantJSON()
        config.stringOrNull("name", name)
        config.string("unique_id", uniqueID)
        let objectID = entitySlug(of: target) + suffix
        config.string("object_id", objectID)
        config.string("default_entity_id", component + "." + objectID)
        var availability = HomeAssistantJSON()
        availability.string("topic", topics.solverStatus)
        availability.string("payload_available", "online")
        availability.string("payload_not_available", "offline")
        config.objects("availability", [availability])
        return config
    }

    /// The keys every config ends with: the device, the origin and the QoS Home Assistant subscribes with.
    private func finish(_ config: HomeAssistantJSON, device: HomeAssistantJSON) -> String {
        var config = config
        config.object("device", device)
        var origin = HomeAssistantJSON()
        origin.string("name", "BlueDot")
        origin.string("sw_version", softwareVersion)
        config.object("origin", origin)
        config.integer("qos", 1)
        return config.text
    }
}
