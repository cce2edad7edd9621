import HCI
import Testing

@testable import Devices

/// A receiver's advertisement: its id follows from the site and the receiver alone, it fits a legacy PDU, and any
/// scanner decodes it as the Eddystone-UID it says it is.
@Suite struct ReceiverBeaconTests {
    /// Instance bytes computed outside Swift: `hashlib.sha256(b"home/rx-1").hexdigest()[:12]` in Python 3.11.
    @Test func idIsTheNamespaceAndAHashOfSiteAndReceiver() throws {
        let beacon = try #require(ReceiverBeacon(site: "home", receiver: "rx-1"))
        #expect(beacon.beaconID == "eddystone:b8202f43bd98bf7f8fe8:" + Self.python["home/rx-1"]!)
        #expect(beacon.beaconID.hasPrefix(ReceiverBeacon.idPrefix))
        #expect(ReceiverBeacon(site: "home", receiver: "rx-1") == beacon, "stable")
        #expect(ReceiverBeacon(site: "office", receiver: "rx-1")?.beaconID == "eddystone:b8202f43bd98bf7f8fe8:"
                + Self.python["office/rx-1"]!, "another site, another id")
    }

    @Test func namespaceIsTheHashOfItsName() throws {
        let digest = try #require(ReceiverBeacon.sha256(Array("BlueDot receiver".utf8)))
        #expect(Array(digest.prefix(10)) == ReceiverBeacon.namespace)
    }

    @Test func advertisingDataIsAWholeEddystoneAdvertisement() throws {
        let beacon = try #require(ReceiverBeacon(site: "home", receiver: "rx-1"))
        let data = beacon.advertisingData
        #expect(data.count == 31)
        let list = ADStructureList(parsing: data)
        #expect(list.errors.isEmpty)
        #expect(list.serviceUUIDs16 == [Eddystone.serviceUUID])
        #expect(Beacon.decode(fromAdvertisingData: data).map(\.id) == [beacon.beaconID])
    }

    static let python = [
        "home/rx-1": "b81af50f3d08",
        "office/rx-1": "7e504727a0be",
    ]
}
