import BlueDotCore
import HomeAssistant
import Logging
import ServiceLifecycle
import Site

/// Reads, once at start, the targets earlier runs announced to Home Assistant (`HomeAssistantRoster`) and hands
/// them to the publisher (targets that lost their name are removed, the others expected), then waits for the
/// shutdown: a service that returned would stop the group.
struct HomeAssistantRosterService: Service {
    let publisher: HomeAssistantPublisher
    /// The solver's broker options (the roster is read with a client of its own).
    let options: MQTTOptions
    let clock: any BlueDotClock
    let logger: Logger

    func run() async throws {
        let earlier = await HomeAssistantRoster.read(
            options: options, discovery: publisher.discovery, clock: clock, logger: logger)
        publisher.adopt(earlier)
        logger.info("Home Assistant targets announced earlier", metadata: ["count": "\(earlier.count)"])
        try? await gracefulShutdown()
    }
}
