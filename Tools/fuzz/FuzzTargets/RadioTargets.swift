import HCI
import Scanner

/// The controller side: H4 framing, HCI events and btsnoop recordings.
enum RadioTargets {
    /// Frames the bytes whole and in chunks: the same packets either way, and each packet's H4 bytes are exactly
    /// the stream's next bytes.
    static func h4(_ bytes: [UInt8]) {
        let whole = frame([bytes])
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        let step = chunkSize(bytes)
        while start < bytes.count {
            chunks.append(bytes[start..<min(bytes.count, start + step)])
            start += step
        }
        let chunked = frame(chunks)
        check(whole.packets == chunked.packets, "chunking changed the packets")
        check(whole.failed == chunked.failed, "chunking changed the framing error")
        var reassembled: [UInt8] = []
        for packet in whole.packets {
            reassembled.append(packet.type.rawValue)
            reassembled.append(contentsOf: packet.bytes)
        }
        check(reassembled.count <= bytes.count && Array(bytes.prefix(reassembled.count)) == reassembled,
              "the packets are not the stream's bytes")
        var decoder = SightingDecoder()
        for packet in whole.packets { _ = decoder.decode(packet, timestamp: 0) }
    }

    private static func frame<Chunk: Sequence<UInt8>>(_ chunks: [Chunk]) -> (packets: [HCIPacket], failed: Bool) {
        var framer = H4Framer()
        var packets: [HCIPacket] = []
        for chunk in chunks {
            framer.append(chunk)
            do {
                while let packet = try framer.next() { packets.append(packet) }
            } catch {
                return (packets, true)
            }
        }
        return (packets, false)
    }

    /// Decodes the bytes as an HCI event packet (the H4 indicator already taken off): the full decoder and the
    /// scanner's fast path must agree on every advertising report, and a decoded event must encode back to the
    /// same packet.
    static func hciEvent(_ bytes: [UInt8]) {
        let packet = HCIPacket(type: .event, bytes: bytes)
        var decoder = SightingDecoder()
        let sightings = decoder.decode(packet, timestamp: 1_700_000_000)
        let batch = AdvertisingReportBatch.decode(packet)
        check(sightings.count == (batch?.reports.count ?? 0), "a sighting per report")
        guard let event = try? HCIEvent.decode(packet) else { return }
        check(event.packet.bytes == bytes, "decode then encode changed the event")
        if case .leMeta(let meta) = event {
            switch meta {
            case .advertisingReport(let e):
                check(batch?.error == nil && batch?.reports == e.reports, "the fast path disagrees (legacy)")
            case .extendedAdvertisingReport(let e):
                check(batch?.error == nil && batch?.reports == e.reports, "the fast path disagrees (extended)")
            default: break
            }
        }
    }

    /// Decodes a btsnoop file whole and in chunks: the same records and the same error either way; every HCI
    /// packet goes through the sighting decoder.
    static func btsnoop(_ bytes: [UInt8]) {
        let whole = records([bytes[...]])
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        let step = 1 + 7 * chunkSize(bytes)
        while start < bytes.count {
            chunks.append(bytes[start..<min(bytes.count, start + step)])
            start += step
        }
        let chunked = records(chunks)
        check(whole.records == chunked.records, "chunking changed the records")
        check(whole.error == chunked.error, "chunking changed the error")
        var decoder = SightingDecoder()
        for record in whole.records {
            if let packet = record.packet { _ = decoder.decode(packet, timestamp: record.unixSeconds) }
        }
    }

    private static func records(_ chunks: [ArraySlice<UInt8>]) -> (records: [BtsnoopRecord], error: BtsnoopError?) {
        var decoder = BtsnoopDecoder()
        var out: [BtsnoopRecord] = []
        do {
            for chunk in chunks {
                decoder.append(chunk)
                while let record = try decoder.next() { out.append(record) }
            }
            decoder.finish()
            while let record = try decoder.next() { out.append(record) }
        } catch {
            return (out, error)
        }
        return (out, nil)
    }
}
