import BlueDotCore
import Foundation
import HCI
import Logging

@testable import Scanner

/// Builders shared by the scanner tests.
enum Fixture {
    static let address = BDAddress("C0:FF:EE:00:00:01")!
    static let iBeacon = Beacon.iBeacon(IBeacon(
        proximityUUID: BluetoothUUID("f7826da6-4fa2-4e98-8024-bc5b71e0893e")!, major: 1, minor: 7, measuredPowerDBm: -59))

    /// A legacy report entry carrying `beacons` (or plain flags when empty).
    static func report(address: BDAddress = address, rssi: Int8 = -60, beacons: [Beacon] = [iBeacon]) -> AdvertisingReport {
        let data = try! Beacon.advertisingData(beacons)
        return AdvertisingReport(
            eventType: .legacy(.advNonconnInd), addressType: .random, address: address, rssiDBm: rssi, data: data[...])
    }

    /// An LE Advertising Report event with the given entries.
    static func advertisingEvent(_ reports: [AdvertisingReport]) -> HCIPacket {
        HCIEvent.leMeta(.advertisingReport(LEAdvertisingReportEvent(reports: reports))).packet
    }

    /// A logger that drops everything (set BLUEDOT_TEST_LOGS=1 to see the scanner's logs).
    static let logger = Logger(label: "test") { label in
        if ProcessInfo.processInfo.environment["BLUEDOT_TEST_LOGS"] == "1" { return StreamLogHandler.standardError(label: label) }
        return SwiftLogNoOpLogHandler()
    }

    /// A scanner over `controller` with a short backoff, waiting on `clock`: a manual clock that stands still
    /// unless the test advances it (so sightings are stamped with its reading and no deadline fires by itself).
    static func scanner(
        _ controller: FakeController, procedure: ScanConfiguration.Procedure = .automatic,
        timeout: Duration = .seconds(10), recorder: (any HCIPacketRecorder)? = nil,
        clock: ManualClock = ManualClock(start: 1_700_000_000.25),
        advertisement: ScanConfiguration.Advertisement? = nil, supervision: ScanWatch? = nil
    ) -> LEScanner {
        LEScanner(
            transport: controller,
            configuration: ScanConfiguration(procedure: procedure, commandTimeout: timeout, advertisement: advertisement),
            backoff: ReconnectBackoff(initial: .milliseconds(5), maximum: .milliseconds(20)),
            recorder: recorder, clock: clock, supervision: supervision, logger: logger)
    }
}

/// Collects sightings delivered from the scanner's reader task.
final class SightingSink: Sendable {
    private let storage = LockedValue<[Sighting]>([])
    var sightings: [Sighting] { storage.withLock { $0 } }
    func append(_ sighting: Sighting) { storage.withLock { $0.append(sighting) } }
}

/// Polls `condition` every 2 ms until it holds or `timeout` passes; returns whether it held. The timeout is generous
/// because other suites run CPU-heavy work on the same small cooperative pool; a passing check returns at once.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
