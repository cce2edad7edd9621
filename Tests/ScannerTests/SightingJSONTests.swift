import BlueDotCore
import HCI
import JSON
import Testing
@testable import Scanner

/// The exact JSON line of each kind of sighting.
@Suite struct SightingJSONTests {
    func sighting(_ beacon: Beacon?, t: Double = 1639485930.123, txPower: Int? = nil) -> Sighting {
        Sighting(
            timestamp: t, address: BDAddress("C0:FF:EE:00:00:01")!, addressType: .random, rssiDBm: -64,
            txPowerDBm: txPower, beacon: beacon)
    }

    @Test func iBeaconLine() {
        #expect(sighting(Fixture.iBeacon).jsonLine == #"{"t":1639485930.123000,"address":"C0:FF:EE:00:00:01","addressType":"random","rssi":-64,"id":"ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7","beacon":{"type":"ibeacon","uuid":"f7826da6-4fa2-4e98-8024-bc5b71e0893e","major":1,"minor":7,"measuredPower":-59}}"#)
    }

    @Test func plainAdvertiserLineWithTxPowerAndFragment() {
        var value = sighting(nil, t: 12.0000004, txPower: -8)
        value.dataStatus = .truncated
        #expect(value.jsonLine == #"{"t":12.000000,"address":"C0:FF:EE:00:00:01","addressType":"random","rssi":-64,"txPower":-8,"id":"mac:c0:ff:ee:00:00:01","dataStatus":"truncated"}"#)
    }

    @Test func eddystoneAndAltBeaconLines() throws {
        let uid = try EddystoneUID(txPowerAt0mDBm: -20, namespace: Array(0..<10), instance: [0xA, 0xB, 0xC, 0xD, 0xE, 0xF])
        #expect(Sighting.json(of: .eddystoneUID(uid)) == #"{"type":"eddystone-uid","namespace":"00010203040506070809","instance":"0a0b0c0d0e0f","txPower":-20}"#)
        let url = EddystoneURL(txPowerAt0mDBm: -18, url: "https://example.com/\"q\"")
        #expect(Sighting.json(of: .eddystoneURL(url)) == #"{"type":"eddystone-url","url":"https://example.com/\"q\"","txPower":-18}"#)
        let tlm = EddystoneTLM.unencrypted(.init(
            batteryMillivolts: 3000, temperatureRaw: 0x1680, advertisingPDUCount: 42, timeSinceBootDeciseconds: 125))
        #expect(Sighting.json(of: .eddystoneTLM(tlm)) == #"{"type":"eddystone-tlm","battery":3000,"temperature":22.5,"advCount":42,"uptime":12.5}"#)
        let alt = AltBeacon(
            companyID: 0x0118, id1: BluetoothUUID("00112233-4455-6677-8899-aabbccddeeff")!, id2: 3, id3: 4,
            referenceRSSIDBm: -65, manufacturerReserved: 0)
        #expect(Sighting.json(of: .altBeacon(alt)) == #"{"type":"altbeacon","id1":"00112233445566778899aabbccddeeff","id2":3,"id3":4,"referenceRSSI":-65}"#)
    }

    @Test func fixedSixDecimalsRoundToMicroseconds() {
        #expect(JSONText.fixed(0, decimals: 6) == "0.000000")
        #expect(JSONText.fixed(1.0000005, decimals: 6) == "1.000001")
        #expect(JSONText.fixed(1763700000.5, decimals: 6) == "1763700000.500000")
        #expect(Sighting.name(of: BDAddressType(rawValue: 0x07)) == "0x07")
    }
}
