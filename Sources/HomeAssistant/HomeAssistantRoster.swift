import BlueDotCore
import Formats
import JSON
import Logging
import Site

/// The targets earlier runs of a site's solver announced to Home Assistant, read back from the broker: their
/// retained tracker configs, each naming its target (through its attributes topic) and the device name it had.
///
/// What a start does with them (`HomeAssistantLedger.adopt`): a target that had a name (`ha-names`, or a device
/// registry feeding the same lookup) and has none now is removed; every other one is expected, so a tag that left
/// while no solver ran goes `not_home` after the away timeout instead of staying home.
public enum HomeAssistantRoster {
    /// The target and device name of one retained tracker config of this site; nil for anything else (another
    /// site's, another program's, an empty or unreadable payload).
    static func entry(_ payload: [UInt8], discovery: HomeAssistantDiscovery) -> (target: String, name: String)? {
        guard payload.count <= 16_384, case .object(let config)? = try? JSONValue.parse(payload),
              case .string(let attributes)? = config["json_attributes_topic"],
              case .object(let device)? = config["device"], case .string(let name)? = device["name"]
        else { return nil }
        let prefix = discovery.topics.root + "/ha/", suffix = "/attributes"
        guard attributes.hasPrefix(prefix), attributes.hasSuffix(suffix),
              attributes.count > prefix.count + suffix.count else { return nil }
        let target = String(attributes.dropFirst(prefix.count).dropLast(suffix.count))
        guard SiteTopics.isTopicLevel(target), attributes == discovery.attributesTopic(target) else { return nil }
        return (target, name)
    }

    /// Reads the retained tracker configs under `discovery.prefix` with a client of its own (`options` with the
    /// client id suffixed `-ha-roster`): device names by target id (live configs, which the running solver may
    /// publish meanwhile, are left out). The broker sends retained messages right after
    /// the subscription; the read ends once `quietSeconds` pass without one, or after `timeoutSeconds` (the
    /// broker unreachable: nothing is known, nothing is removed).
    public static func read(
        options: MQTTOptions, discovery: HomeAssistantDiscovery, clock: any BlueDotClock, logger: Logger,
        quietSeconds: Double = 1, timeoutSeconds: Double = 10
    ) async -> [String: String] {
        var options = options
        options.clientID = options.clientID.isEmpty ? "" : options.clientID + "-ha-roster"
        let client: MQTTClient
        do {
            client = try MQTTClient(options: options, clock: clock, logger: logger)
            try client.subscribe("\(discovery.prefix)/device_tracker/+/config", qos: 1)
            try client.start()
        } catch {
            logger.warning("cannot read the targets announced earlier", metadata: ["error": "\(error)"])
            return [:]
        }
        defer { client.stop() }
        let found = LockedValue<[String: String]>([:])
        let heard = LockedValue<Double?>(nil)
        let reader = Task {
            for await event in client.events {
                switch event {
                case .connected: heard.withLock { $0 = $0 ?? clock.now() }
                case .message(let m):
                    heard.withLock { $0 = clock.now() }
                    // Retained only: a config this run publishes meanwhile says nothing about earlier names.
                    if m.retain, let (target, name) = entry(m.payload, discovery: discovery) {
                        found.withLock { $0[target] = name }
                    }
                case .disconnected: break
                }
            }
        }
        defer { reader.cancel() }
        // A timer re-armed by each message: wake when `quietSeconds` have passed since the last one.
        let deadline = clock.now() + timeoutSeconds
        while clock.now() < deadline {
            let now = clock.now()
            if let last = heard.value, now - last >= quietSeconds { return found.value }
            let wake = min(deadline, (heard.value ?? now) + quietSeconds)
            guard (try? await clock.sleep(until: wake)) != nil else { break }
        }
        if !Task.isCancelled {
            logger.warning("the targets announced earlier were not read: the broker did not answer in time")
        }
        return [:]
    }
}
