import BeaconLocation
import BlueDotCore
import Devices
import Logging
import Positioning
import ServiceLifecycle
import Site

/// The receiver role of a site (`bluedot run ... --publish MQTT_URL --site SITE --receiver ID`): the radio's
/// reports of registry devices (`--devices`, private addresses resolved here) and known beacons go, every one, in
/// batches to `bluedot/<site>/sightings/<receiver>`; strangers are only counted; no engine, no web map.
///
/// The inputs run as in the gateway (a scanner fault restarts the scan after 2 s) with a tap into a
/// `SightingPublisher`; the MQTT client keeps `bluedot/<site>/receivers/<receiver>/status` at a retained `online`
/// (its last will says `offline`). SIGTERM and SIGINT stop the scan, send what is buffered if the broker is up,
/// publish `offline` and disconnect.
public struct ReceiverApp: Sendable {
    /// The configuration in use.
    public let configuration: GatewayConfiguration
    /// The batches' publisher.
    public let publisher: SightingPublisher
    /// The connection to the broker.
    public let client: MQTTClient
    /// The inputs.
    public let runner: InputRunner
    private let offline: MQTTMessage
    private let recording: BtsnoopRecording?
    private let logger: Logger

    /// Prepares the inputs, the connection and the publisher; throws naming the setting that is wrong.
    public init(configuration: GatewayConfiguration, clock: any BlueDotClock = SystemClock(), logger: Logger) throws {
        var c = configuration
        c.mode = .tag
        guard let broker = c.site.publishBroker, let name = c.site.site, let topics = SiteTopics(site: name),
              let receiver = c.gatewayID
        else {
            throw ConfigurationError(location: "configuration", key: "publish",
                                     reason: .conflict("publish needs site and receiver"))
        }
        self.configuration = c
        self.logger = logger
        let status = topics.receiverStatus(receiver: receiver)
        offline = MQTTMessage(topic: status, text: "offline", qos: 1, retain: true)
        do {
            let options = try c.site.options(url: broker, defaultClientID: "bluedot-receiver-\(name)-\(receiver)")
            client = try MQTTClient(
                options: options, will: offline, birth: [MQTTMessage(topic: status, text: "online", qos: 1, retain: true)],
                clock: clock, logger: logger)
        } catch {
            throw ConfigurationError(location: "configuration", key: "publish", reason: .badValue("\(error)"))
        }
        var settings = SightingPublisher.Settings()
        settings.bufferSeconds = c.site.bufferSeconds
        settings.allow = c.site.allow
        // Other receivers' own advertisements are the site's free survey: an allow-list never keeps them back.
        if !settings.allow.isEmpty, let receivers = IDPattern(ReceiverBeacon.idPrefix + "*") {
            settings.allow.append(receivers)
        }
        // The receiver resolves: only devices and known beacons are published, strangers only counted.
        let devices = try c.deviceIdentifier(logger: logger)
        let publisher = SightingPublisher(client: client, topics: topics, receiver: receiver, settings: settings,
                                          devices: devices, clock: clock, logger: logger)
        self.publisher = publisher
        recording = try c.recordPath.map { try BtsnoopRecording(path: $0, logger: logger) }
        let inputs = try SourceFactory.make(c, venue: Venue(name: "receiver", anchors: []), devices: devices,
                                            recorder: recording, clock: clock, logger: logger)
        runner = InputRunner(
            inputs: inputs, pipeline: nil, clock: clock,
            policy: InputRunner.Policy(restartDelaySeconds: 2, tickSeconds: nil), logger: logger,
            tap: { batch in batch.forEach { publisher.offer($0.observation) } }, deliver: { _ in })
    }

    /// Runs until SIGTERM or SIGINT.
    public func run() async throws {
        let group = ServiceGroupConfiguration(
            services: [.init(service: ReceiverService(app: self))],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        try await ServiceGroup(configuration: group).run()
    }

    /// The lifecycle: connect, scan and publish until shutdown, then flush and say goodbye.
    struct ReceiverService: Service {
        let app: ReceiverApp

        func run() async throws {
            try app.client.start()
            app.logger.notice("receiver publishing", metadata: [
                "broker": "\(app.client.options.url)", "topic": "\(app.publisher.topics.sightings(receiver: app.publisher.receiver))",
                "inputs": "\(app.runner.inputs.map(\.name).joined(separator: " + "))",
            ])
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in app.client.events {
                        switch event {
                        case .connected(let level):
                            app.logger.notice("connected to the broker", metadata: ["mqtt": "\(level)"])
                        case .disconnected(let reason):
                            app.logger.warning("broker connection lost; sightings wait in the buffer",
                                               metadata: ["reason": "\(reason)"])
                        case .message: break
                        }
                    }
                }
                group.addTask { try? await app.runner.run() }
                group.addTask { await app.publisher.run() }
                try? await gracefulShutdown()
                app.runner.stop()
                group.cancelAll()
            }
            app.publisher.flush()
            app.client.stop(farewell: [app.offline])
            app.recording?.close()
            let s = app.publisher.statistics
            app.logger.notice("receiver stopped", metadata: [
                "heard": "\(s.heard)", "published": "\(s.published)", "dropped": "\(s.dropped)", "buffered": "\(s.buffered)",
            ])
        }
    }
}
