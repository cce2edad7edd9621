import Site

/// What a site's solver tells Home Assistant through MQTT discovery, as pure values: topics, ids, the discovery
/// configs and the payloads of each fix (`HomeAssistantDiscovery+Configs.swift`, `+States.swift`). No I/O:
/// `HomeAssistantPublisher` sends what this builds. Topics, payloads and the Home Assistant documentation they follow
/// are in this folder's README.
///
/// Per target (one Home Assistant device): a `device_tracker` reading `home` while the target is located and
/// `not_home` once it has not been heard for the away timeout (`HomeAssistantLedger`), with the fix as attributes; a
/// room `sensor` (the room's name, or `none`); and two diagnostic sensors graphed from the attributes, the accuracy
/// radius (metres) and the receivers that heard it. Per site (one device the targets' devices are connected via): a
/// connectivity `binary_sensor` on the solver's status topic. The targets' entities are available while that topic
/// says `online`.
public struct HomeAssistantDiscovery: Sendable, Hashable {
    /// The discovery prefix Home Assistant listens on (its default: `homeassistant`).
    public var prefix: String
    /// The site's topics: its name goes into every id, its status topic is the availability.
    public var topics: SiteTopics
    /// Which targets are announced (id globs); empty: every one.
    public var allow: [IDPattern]
    /// Display names by target id (default: the id): the one "target id -> display name" lookup, today from
    /// `--ha-names`. They name the devices and the entity ids (`entitySlug(of:)`).
    public var names: [String: String]
    /// Room names by room id (default: the id); they are the states, and the room sensor's options.
    public var roomNames: [String: String]
    /// The version announced in the devices' `sw_version` and the configs' origin.
    public var softwareVersion: String

    /// Creates the discovery of a site.
    public init(prefix: String = HomeAssistantDiscovery.defaultPrefix, topics: SiteTopics, allow: [IDPattern] = [],
                names: [String: String] = [:], roomNames: [String: String] = [:],
                softwareVersion: String = HomeAssistantDiscovery.defaultSoftwareVersion) {
        self.prefix = prefix
        self.topics = topics
        self.allow = allow
        self.names = names
        self.roomNames = roomNames
        self.softwareVersion = softwareVersion
    }

    /// Home Assistant's default discovery prefix.
    public static let defaultPrefix = "homeassistant"
    /// The version BlueDot announces when none is given.
    public static let defaultSoftwareVersion = "0.12"

    /// Whether `target` is announced: the allow-list lets it through and its id can be one topic level.
    public func announces(_ target: String) -> Bool {
        SiteTopics.isTopicLevel(target) && IDPattern.allows(allow, target)
    }

    /// The target's friendly name: its configured name, else its id.
    public func name(of target: String) -> String { names[target] ?? target }

    /// The object id Home Assistant builds a target's entity ids from: its name as Home Assistant slugifies it
    /// (`HomeAssistantID.slug`), so `Alice's keys` gives `device_tracker.alice_s_keys` and `sensor.alice_s_keys_room`.
    public func entitySlug(of target: String) -> String { HomeAssistantID.slug(name(of: target)) }

    // MARK: Ids

    /// The object id of a target's tracker, also its `unique_id` (`HomeAssistantID.target`).
    public func objectID(of target: String) -> String { HomeAssistantID.target(site: topics.site, target: target) }
    /// The object id and `unique_id` of a target's room sensor.
    public func sensorObjectID(of target: String) -> String { objectID(of: target) + "_room" }
    /// The object id and `unique_id` of one of a target's measurement sensors (`Measurement`).
    public func measurementObjectID(of target: String, _ measurement: Measurement) -> String {
        objectID(of: target) + "_" + measurement.rawValue
    }
    /// The object id and `unique_id` of the solver's connectivity sensor.
    public var solverObjectID: String { HomeAssistantID.solver(site: topics.site) }
    /// The device identifier of a target: `bluedot/<site>/<target>` (a site name holds no `/`, so no two sites'
    /// targets share one).
    public func deviceIdentifier(of target: String) -> String { "\(topics.root)/\(target)" }
    /// The device identifier of the site's solver, `bluedot/<site>`: the targets' `via_device`.
    public var solverDeviceIdentifier: String { topics.root }

    // MARK: Topics

    /// The tracker's discovery topic, `<prefix>/device_tracker/<object id>/config`.
    public func trackerConfigTopic(_ target: String) -> String {
        "\(prefix)/device_tracker/\(objectID(of: target))/config"
    }
    /// The room sensor's discovery topic, `<prefix>/sensor/<object id>_room/config`.
    public func sensorConfigTopic(_ target: String) -> String { "\(prefix)/sensor/\(sensorObjectID(of: target))/config" }
    /// A measurement sensor's discovery topic, `<prefix>/sensor/<object id>_<measurement>/config`.
    public func measurementConfigTopic(_ target: String, _ measurement: Measurement) -> String {
        "\(prefix)/sensor/\(measurementObjectID(of: target, measurement))/config"
    }
    /// The solver sensor's discovery topic, `<prefix>/binary_sensor/<solver object id>/config`.
    public var solverConfigTopic: String { "\(prefix)/binary_sensor/\(solverObjectID)/config" }
    /// The tracker's state topic, `bluedot/<site>/ha/<target>/state`.
    public func stateTopic(_ target: String) -> String { "\(topics.root)/ha/\(target)/state" }
    /// The room sensor's state topic, `bluedot/<site>/ha/<target>/room`.
    public func roomTopic(_ target: String) -> String { "\(topics.root)/ha/\(target)/room" }
    /// The tracker's attributes topic, `bluedot/<site>/ha/<target>/attributes`.
    public func attributesTopic(_ target: String) -> String { "\(topics.root)/ha/\(target)/attributes" }

    /// The discovery topics of a target's entities: what removing it clears first (Home Assistant removes an
    /// entity on an empty config).
    public func configTopics(of target: String) -> [String] {
        [trackerConfigTopic(target), sensorConfigTopic(target)]
            + Measurement.allCases.map { measurementConfigTopic(target, $0) }
    }

    /// The state and attribute topics of a target: cleared after its configs, once Home Assistant has let go of
    /// them (an empty payload on a topic a live entity reads is an `Erroneous JSON` warning in its log).
    public func stateTopics(of target: String) -> [String] {
        [stateTopic(target), roomTopic(target), attributesTopic(target)]
    }
}
