import Formats
import Positioning
import Site

/// The synthetic receivers of the site benchmarks on one MQTT connection: each tick's sightings, grouped by
/// receiver, go out as sighting batches on `bluedot/<site>/sightings/<receiver>` (at most
/// `SightingBatch.maximumSightings` per batch, `seq` counted per receiver from 0, stamped with the tick's clock),
/// as `bluedot run --publish` would send them.
struct SiteFeed {
    /// What to do with a batch the client does not take (the link is down).
    enum WhenDown {
        /// Try again every millisecond until it is sent (a benchmark that must deliver everything).
        case wait
        /// Count its sightings as dropped and go on (a soak whose broker is restarted under it).
        case drop
    }

    let site: String
    let publisher: MQTTClient
    let whenDown: WhenDown
    private var sequence: [String: Int] = [:]
    /// Sightings handed to the client.
    private(set) var published = 0
    /// Sightings dropped because the client was not connected.
    private(set) var dropped = 0

    init(site: String, publisher: MQTTClient, whenDown: WhenDown) {
        self.site = site
        self.publisher = publisher
        self.whenDown = whenDown
    }

    /// Publishes `observations` (times already on the receivers' clock) as each receiver's batches at `clock`.
    mutating func publish(_ observations: some Sequence<Observation>, clock: Double) async throws {
        var byReceiver: [String: [Observation]] = [:]
        for o in observations {
            byReceiver[o.anchor, default: []].append(Observation(t: o.t, anchor: o.anchor, target: o.target, rssiDBm: o.rssiDBm))
        }
        for (receiver, sightings) in byReceiver {
            var offset = 0
            while offset < sightings.count {
                let chunk = Array(sightings[offset..<min(sightings.count, offset + SightingBatch.maximumSightings)])
                offset += chunk.count
                let seq = sequence[receiver, default: 0]
                sequence[receiver] = seq + 1
                let batch = SightingBatch(receiver: receiver, sequence: seq, clock: clock, sightings: chunk)
                let message = MQTTMessage(topic: "bluedot/\(site)/sightings/\(receiver)", payload: batch.encoded())
                var sent = publisher.publish(message) == .sent
                while !sent, whenDown == .wait {
                    try await Task.sleep(for: .milliseconds(1))
                    sent = publisher.publish(message) == .sent
                }
                if sent { published += chunk.count } else { dropped += chunk.count }
            }
        }
    }
}
