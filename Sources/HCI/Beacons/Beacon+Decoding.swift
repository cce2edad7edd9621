extension Beacon {
    /// Finds the beacon frames in advertising or scan response data (Core Spec 5.4, Vol 3, Part C, §11).
    ///
    /// Returns the frames in the order sent; an advertisement may hold none, one, or several (such as an
    /// Eddystone-TLM only). Structures that look like a beacon but are malformed are not beacons and are skipped;
    /// AD structures after an overrun are not reached. Allocates only for the frames it returns.
    public static func decode(fromAdvertisingData data: ArraySlice<UInt8>) -> [Beacon] {
        var beacons = [Beacon]()
        var reader = ADElementReader(data)
        while let element = try? reader.next() {
            if let beacon = decode(element: element) { beacons.append(beacon) }
        }
        return beacons
    }

    /// Finds the beacon frames in advertising or scan response data.
    public static func decode(fromAdvertisingData data: [UInt8]) -> [Beacon] {
        decode(fromAdvertisingData: data[...])
    }

    /// Decodes one AD structure as a beacon frame, or returns nil when it is not one (or is malformed).
    ///
    /// Checks the marker bytes before decoding, so that the common non-beacon structure costs a few compares.
    @inlinable public static func decode(element: ADElement) -> Beacon? {
        let data = element.data
        switch element.type {
        case .manufacturerSpecificData:
            guard data.count >= 4 else { return nil }
            let i = data.startIndex
            let company = UInt16(data[i]) | UInt16(data[i + 1]) << 8
            let payload = data[(i + 2)...]
            if company == IBeacon.appleCompanyID && data[i + 2] == IBeacon.beaconType {
                return (try? IBeacon(companyID: company, data: payload)).map(Beacon.iBeacon)
            }
            if data[i + 2] == 0xBE && data[i + 3] == 0xAC {
                return (try? AltBeacon(companyID: company, data: payload)).map(Beacon.altBeacon)
            }
            return nil
        case .serviceData16:
            guard data.count >= 3 else { return nil }
            let i = data.startIndex
            guard UInt16(data[i]) | UInt16(data[i + 1]) << 8 == Eddystone.serviceUUID else { return nil }
            return (try? Eddystone.decode(serviceData: data[(i + 2)...])) ?? nil
        default:
            return nil
        }
    }

    /// Builds advertising data for beacon frames: Flags, then for Eddystone frames the complete 16-bit service
    /// UUID list with 0xFEAA, then each frame. For tests and the virtual controller.
    public static func advertisingData(
        _ beacons: [Beacon], flags: ADFlags = [.leGeneralDiscoverable, .brEdrNotSupported]
    ) throws(HCIDecodingError) -> [UInt8] {
        var structures: [ADStructure] = [.flags(flags)]
        let isEddystone = beacons.contains { beacon in
            switch beacon {
            case .eddystoneUID, .eddystoneURL, .eddystoneTLM: true
            case .iBeacon, .altBeacon: false
            }
        }
        if isEddystone { structures.append(.serviceUUIDs16(complete: true, uuids: [Eddystone.serviceUUID])) }
        for beacon in beacons { structures.append(try beacon.adStructure()) }
        do { return try ADStructureList(structures).encoded() } catch {
            throw .invalid(field: "advertising data", offset: 0, reason: error.description)
        }
    }
}
