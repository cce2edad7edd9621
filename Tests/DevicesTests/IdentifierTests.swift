import Devices
import HCI
import Testing

@Suite struct IdentifierTests {
    static let irk = IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!
    static let registry = try! DeviceRegistry(devices: [
        Device(id: "alice-phone", name: "Alice's phone", irks: [irk]),
        Device(id: "keys", name: "Keys", beacons: ["ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"]),
        Device(id: "forklift-7", name: "Forklift 7", addresses: [BDAddress("C0:11:22:33:44:55")!],
               espresense: ["forklift7"]),
    ])

    @Test func everyIdentityLeadsToItsDevice() throws {
        let ids = try #require(DeviceIdentifier(registry: Self.registry))
        let rpa = try #require(PrivateAddress.make(irk: Self.irk, random: 0x1234))
        #expect(ids.identify(address: rpa, type: .random, beaconID: nil, at: 0) == .device("alice-phone"))
        #expect(ids.identify(address: BDAddress("C0:11:22:33:44:55")!, type: .random, beaconID: nil, at: 0)
            == .device("forklift-7"))
        #expect(ids.identify(address: BDAddress("C0:00:00:00:00:09")!, type: .random,
                             beaconID: "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7", at: 0) == .device("keys"))
        #expect(ids.identify(address: BDAddress("C0:00:00:00:00:09")!, type: .random,
                             beaconID: "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:8", at: 0)
            == .beacon("ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:8"))
        #expect(ids.identify(address: BDAddress("C0:00:00:00:00:09")!, type: .random, beaconID: nil, at: 0) == .stranger)
        // An RPA of another key, and the same bits as a public address: strangers, and only counted.
        let other = try #require(PrivateAddress.make(irk: IdentityResolvingKey(hex: "00112233445566778899aabbccddeeff")!,
                                                     random: 0x1234))
        #expect(ids.identify(address: other, type: .random, beaconID: nil, at: 0) == .stranger)
        #expect(ids.identify(address: rpa, type: .public, beaconID: nil, at: 0) == .stranger,
                "a public address is never resolved")
        let s = ids.statistics
        #expect(s.devices == 3 && s.beacons == 1 && s.strangers == 3 && s.privateStrangers == 1)
    }

    @Test func reportedIdsMapToTheSameDevices() {
        let ids = DeviceIdentifier(registry: Self.registry)!
        #expect(ids.identify(reportedID: "irk:EC0234A357C8AD05341010A60A397D9B") == .device("alice-phone"),
                "ESPresense's irk: id is BlueDot's own resolution's device")
        #expect(ids.identify(reportedID: "alice-phone") == .device("alice-phone"))
        #expect(ids.identify(reportedID: "Forklift7") == .device("forklift-7"))
        #expect(ids.identify(reportedID: "mac:c0:11:22:33:44:55") == .device("forklift-7"))
        #expect(ids.identify(reportedID: "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7") == .device("keys"))
        #expect(ids.identify(reportedID: "apple:1005:9-26") == .stranger)
        #expect(ids.identify(reportedID: "irk:00112233445566778899aabbccddeeff") == .stranger)
        #expect(ids.target(ofObservation: "mac:c0:00:00:00:00:01") == nil)
        #expect(ids.target(ofObservation: "mac:c0:11:22:33:44:55") == "forklift-7")
        #expect(ids.target(ofObservation: "tag-1") == "tag-1", "a name from elsewhere stays")
    }

    @Test func aKnownAddressIsALookUpAndAStrangerIsRememberedForAWhile() throws {
        var settings = AddressResolver.Settings()
        settings.strangerSeconds = 60
        var resolver = try #require(AddressResolver(keys: [(Self.irk, owner: 4)], settings: settings))
        let rpa = try #require(PrivateAddress.make(irk: Self.irk, random: 77))
        let stranger = BDAddress(rawValue: 0x4A_BCDE_F012_34)
        #expect(resolver.resolve(rpa, at: 0) == 4)
        #expect(resolver.resolve(rpa, at: 1) == 4)
        #expect(resolver.resolve(stranger, at: 0) == nil)
        #expect(resolver.resolve(stranger, at: 59) == nil)
        #expect(resolver.statistics.passes == 2, "one pass per new address")
        #expect(resolver.statistics.resolvedHits == 1 && resolver.statistics.strangerHits == 1)
        #expect(resolver.resolve(stranger, at: 60) == nil)
        #expect(resolver.statistics.passes == 3, "tried again once its time was up")
    }

    @Test func theCachesAreBounded() throws {
        var settings = AddressResolver.Settings()
        settings.strangerCapacity = 8
        var resolver = try #require(AddressResolver(keys: [(Self.irk, owner: 0)], settings: settings))
        for n in 0..<100 { _ = resolver.resolve(BDAddress(rawValue: 0x4000_0000_0000 | UInt64(n) << 8), at: 0) }
        #expect(resolver.statistics.strangersCached == 8)
        #expect(resolver.statistics.passes == 100)
        _ = resolver.resolve(BDAddress(rawValue: 0x4000_0000_0000 | 99 << 8), at: 1)
        #expect(resolver.statistics.strangerHits == 1, "the newest are kept")
        _ = resolver.resolve(BDAddress(rawValue: 0x4000_0000_0000), at: 1)
        #expect(resolver.statistics.passes == 101, "the oldest went first")
    }
}

@Suite struct AnchorAddressTests {
    /// A self-mode venue may name a fixed advertiser by its address: known as itself, not a stranger.
    @Test func aVenueAnchorNamedByAddressIsKnown() throws {
        let ids = try #require(DeviceIdentifier(registry: .empty, anchorIDs: ["mac:c0:00:00:00:00:03", "rx-1"]))
        #expect(ids.identify(address: BDAddress("C0:00:00:00:00:03")!, type: .random, beaconID: nil, at: 0)
            == .beacon("mac:c0:00:00:00:00:03"))
        #expect(ids.identify(address: BDAddress("C0:00:00:00:00:04")!, type: .random, beaconID: nil, at: 0) == .stranger)
        #expect(ids.statistics.beacons == 1 && ids.statistics.strangers == 1)
    }
}
