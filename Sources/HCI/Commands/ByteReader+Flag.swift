/// One-byte boolean command parameters, such as LE_Scan_Enable (Core Spec 5.4, Vol 4, Part E, §7.8.11):
/// 0x00 is false, 0x01 true, anything else is invalid.
extension ByteReader {
    /// Reads a one-byte boolean parameter: 0x00 or 0x01, anything else is invalid.
    mutating func flag(_ field: String) throws(HCIDecodingError) -> Bool {
        let at = offset
        switch try u8(field) {
        case 0x00: return false
        case 0x01: return true
        case let other: throw .invalid(field: field, offset: at, reason: "expected 0x00 or 0x01, found \(other)")
        }
    }
}
