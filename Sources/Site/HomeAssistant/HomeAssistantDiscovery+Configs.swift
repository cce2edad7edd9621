/// The discovery configs, one JSON object per entity, with the full key names of Home Assistant's documentation
/// (no abbreviations): integrations/device_tracker.mqtt, sensor.mqtt, binary_sensor.mqtt, and integrations/mqtt for
/// the `device`, `origin` and `availability` mappings.
extension HomeAssistantDiscovery {
    /// The room sensor's state outside every room.
    public static let noRoom = "none"

    /// The tracker's config: the device's main entity (`name` null: it takes the device's name), state on
    /// `stateTopic`, the fix as attributes on `attributesTopic`, `source_type` `bluetooth_le`. `payload_home` and
    /// `payload_not_home` keep their documented defaults (`home`, `not_home`), so they are not sent.
    public func trackerConfig(_ target: String) -> String {
        var config = entity(name: nil, uniqueID: objectID(of: target))
        config.string("state_topic", stateTopic(target))
        config.string("json_attributes_topic", attributesTopic(target))
        config.string("source_type", "bluetooth_le")
        return finish(config, device: device(of: target))
    }

    /// The room sensor's config: named "Room" (Home Assistant shows "<device> Room"). With room names known it is an
    /// `enum` sensor whose options are every room's name and `none`, so automations can offer them.
    public func sensorConfig(_ target: String) -> String {
        var config = entity(name: "Room", uniqueID: sensorObjectID(of: target))
        config.string("state_topic", roomTopic(target))
        config.string("icon", "mdi:door")
        if !roomNames.isEmpty {
            config.string("device_class", "enum")
            config.strings("options", roomOptions)
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

    /// The keys a target's two entities start with: name, unique id, availability on the solver's status topic.
    private func entity(name: String?, uniqueID: String) -> HomeAssistantJSON {
        var config = HomeAssistantJSON()
        config.stringOrNull("name", name)
        config.string("unique_id", uniqueID)
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
