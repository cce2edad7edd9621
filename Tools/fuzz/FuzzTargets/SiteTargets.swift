import Site

/// What arrives over MQTT from a site's receivers and ESPresense nodes.
enum SiteTargets {
    /// Decodes the bytes as a sighting batch. The encoder writes times to the millisecond (the format's
    /// precision), so a decoded batch must come back from encode and decode with its times within half a
    /// millisecond and everything else equal, and a second round trip must change nothing.
    static func sightingBatch(_ bytes: [UInt8]) {
        guard let batch = try? SightingBatch.decode(bytes) else { return }
        let once = roundTrip(batch)
        check(once.receiver == batch.receiver && once.sequence == batch.sequence
              && once.sightings.count == batch.sightings.count && close(once.clock, batch.clock),
              "a batch changed through encode and decode:\n\(batch)\n\(once)")
        for (a, b) in zip(once.sightings, batch.sightings) {
            check(a.anchor == b.anchor && a.target == b.target && a.rssiDBm == b.rssiDBm && a.txPowerDBm == b.txPowerDBm
                  && close(a.t, b.t),
                  "a sighting changed through encode and decode:\n\(b)\n\(a)")
        }
        check(roundTrip(once) == once, "a second encode and decode changed the batch:\n\(once)")
    }

    private static func roundTrip(_ batch: SightingBatch) -> SightingBatch {
        do {
            return try SightingBatch.decode(batch.encoded())
        } catch {
            fatalError("an encoded batch does not decode: \(error)\n"
                       + String(decoding: batch.encoded(), as: UTF8.self))
        }
    }

    /// Equal to the millisecond (with the rounding of a double of that size).
    private static func close(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= 0.0005 + abs(b).ulp * 4
    }

    /// The first line is the topic, the rest the payload: parsed as a device report and as a node status topic.
    static func espresense(_ bytes: [UInt8]) {
        let (topicBytes, payload) = split(bytes, at: UInt8(ascii: "\n"))
        let topic = String(decoding: topicBytes, as: UTF8.self)
        _ = ESPresenseReport.statusNode(topic: topic)
        guard let report = try? ESPresenseReport.parse(topic: topic, payload: payload) else { return }
        check(report.rssi.isFinite && ESPresenseReport.plausibleDBm.contains(report.rssi), "rssi out of range")
        check(!report.device.isEmpty && !report.node.isEmpty, "empty device or node")
    }
}
