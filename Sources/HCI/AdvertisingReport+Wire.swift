/// The two wire layouts of a report entry, read report by report as controllers send them.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 lists the legacy event's fields as arrays indexed by report, but
/// controllers send, and BlueZ (btmon, the kernel), Wireshark and Bumble read, each report's fields together:
/// Event_Type, Address_Type, Address, Data_Length, Data, RSSI, then the next report. §7.7.65.13 is read the same way.
extension AdvertisingReport {
    /// Reads one legacy entry (§7.7.65.2); `data` slices the reader's buffer.
    @inlinable public static func decodeLegacy(from reader: inout ByteReader) throws(HCIDecodingError) -> AdvertisingReport {
        let eventType = LegacyAdvertisingEventType(rawValue: try reader.u8("Event_Type"))
        let addressType = BDAddressType(rawValue: try reader.u8("Address_Type"))
        let address = try BDAddress.decode(from: &reader, "Address")
        let length = try reader.u8("Data_Length")
        let data = try reader.bytes(Int(length), "Data")
        let rssi = try reader.i8("RSSI")
        return AdvertisingReport(eventType: .legacy(eventType), addressType: addressType, address: address,
                                 rssiDBm: available(rssi), data: data)
    }

    /// Reads one extended entry (§7.7.65.13); `data` slices the reader's buffer.
    @inlinable public static func decodeExtended(from reader: inout ByteReader) throws(HCIDecodingError) -> AdvertisingReport {
        let properties = AdvertisingEventProperties(rawValue: try reader.u16("Event_Type"))
        let addressType = BDAddressType(rawValue: try reader.u8("Address_Type"))
        let address = try BDAddress.decode(from: &reader, "Address")
        let primary = LEPHY(rawValue: try reader.u8("Primary_PHY"))
        let secondary = try reader.u8("Secondary_PHY")
        let sid = try reader.u8("Advertising_SID")
        let txPower = try reader.i8("TX_Power")
        let rssi = try reader.i8("RSSI")
        let interval = try reader.u16("Periodic_Advertising_Interval")
        let directType = BDAddressType(rawValue: try reader.u8("Direct_Address_Type"))
        let directAddress = try BDAddress.decode(from: &reader, "Direct_Address")
        let length = try reader.u8("Data_Length")
        let data = try reader.bytes(Int(length), "Data")
        return AdvertisingReport(eventType: .extended(properties), addressType: addressType, address: address,
                                 rssiDBm: available(rssi), txPowerDBm: available(txPower), primaryPHY: primary,
                                 secondaryPHY: secondary == 0 ? nil : LEPHY(rawValue: secondary),
                                 sid: sid == 0xFF ? nil : sid, periodicAdvertisingIntervalUnits: interval,
                                 directAddressType: directType, directAddress: directAddress, data: data)
    }

    /// Writes the entry in the legacy layout; see `AdvertisingEventType.legacyRawValue` for extended types.
    /// Data longer than 255 bytes is cut to 255.
    public func encodeLegacy(into writer: inout ByteWriter) {
        let data = self.data.prefix(255)
        writer.u8(eventType.legacyRawValue)
        writer.u8(addressType.rawValue)
        address.encode(into: &writer)
        writer.u8(UInt8(data.count))
        writer.append(data)
        writer.i8(rssiDBm ?? Self.notAvailable)
    }

    /// Writes the entry in the extended layout; absent values are written as their "not available" sentinels.
    /// Data longer than 255 bytes is cut to 255.
    public func encodeExtended(into writer: inout ByteWriter) {
        let data = self.data.prefix(255)
        writer.u16(eventType.extendedRawValue)
        writer.u8(addressType.rawValue)
        address.encode(into: &writer)
        writer.u8(primaryPHY.rawValue)
        writer.u8(secondaryPHY?.rawValue ?? 0x00)
        writer.u8(sid ?? 0xFF)
        writer.i8(txPowerDBm ?? Self.notAvailable)
        writer.i8(rssiDBm ?? Self.notAvailable)
        writer.u16(periodicAdvertisingIntervalUnits)
        writer.u8(directAddressType?.rawValue ?? 0x00)
        (directAddress ?? .zero).encode(into: &writer)
        writer.u8(UInt8(data.count))
        writer.append(data)
    }
}
