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
        var r = ByteReader(element.data)
        switch element.type {
        case .manufacturerSpecificData:
            guard let company = try? r.u16("company identifier") else { return nil }
            let payload = r.rest()
            var peek = ByteReader(payload)
            guard let marker = try? peek.u16BigEndian("beacon marker") else { return nil }
            if company == IBeacon.appleCompanyID && marker >> 8 == IBeacon.beaconType {
                return (try? IBeacon(companyID: company, data: payload)).map(Beacon.iBeacon)
            }
            if marker == AltBeacon.beaconCode {
                return (try? AltBeacon(companyID: company, data: payload)).map(Beacon.altBeacon)
            }
            return nil
        case .serviceData16:
            guard (try? r.u16("service UUID")) == Eddystone.serviceUUID else { return nil }
            return (try? Eddystone.decode(serviceData: r.rest())) ?? nil
        default:
            return nil
        }
    }

    /// Builds advertising data for beacon frames: Flags, then for Eddystone frames the complete 16-bit service
    /// UUID list with 0xFEAA, then each frame: what a site receiver advertises (`ReceiverBeacon`), and tests'
    /// frames.
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
