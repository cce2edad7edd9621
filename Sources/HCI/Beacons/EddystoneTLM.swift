/// An Eddystone-TLM frame (frame type 0x20): the sender's telemetry. Carries no beacon id of its own.
///
/// google/eddystone, "eddystone-tlm/tlm-plain.md" (version 0x00, unencrypted): battery voltage in mV (0 when not
/// battery powered), temperature as signed 8.8 fixed point in °C (0x8000 when not supported), advertising PDU count
/// and time since power-on in 0.1 s, all big-endian. "eddystone-tlm/tlm-encrypted.md" (version 0x01): encrypted
/// TLM, salt and MIC, kept raw here. Carried as Service Data of UUID 0xFEAA (CSS v11, Part A, §1.11).
public enum EddystoneTLM: Sendable, Hashable {
    /// Version 0x00: plain telemetry.
    case unencrypted(Telemetry)
    /// Version 0x01: encrypted telemetry, the 16 bytes after the version octet as sent.
    case encrypted(data: [UInt8])

    /// Plain TLM fields (version 0x00).
    public struct Telemetry: Sendable, Hashable {
        /// Battery voltage in mV; 0 when the beacon is not battery powered.
        public var batteryMillivolts: UInt16
        /// Temperature as signed 8.8 fixed point °C; `Int16(bitPattern: 0x8000)` when not supported.
        public var temperatureRaw: Int16
        /// Advertising PDUs sent since power-on or reboot.
        public var advertisingPDUCount: UInt32
        /// Time since power-on or reboot, in units of 0.1 s.
        public var timeSinceBootDeciseconds: UInt32

        /// Creates telemetry from its raw fields.
        public init(
            batteryMillivolts: UInt16, temperatureRaw: Int16, advertisingPDUCount: UInt32,
            timeSinceBootDeciseconds: UInt32
        ) {
            self.batteryMillivolts = batteryMillivolts
            self.temperatureRaw = temperatureRaw
            self.advertisingPDUCount = advertisingPDUCount
            self.timeSinceBootDeciseconds = timeSinceBootDeciseconds
        }

        /// The raw temperature value that means "not supported".
        public static let temperatureNotSupported = Int16(bitPattern: 0x8000)

        /// The temperature in °C, or nil when not supported.
        public var temperatureCelsius: Double? {
            temperatureRaw == Self.temperatureNotSupported ? nil : Double(temperatureRaw) / 256
        }

        /// The time since boot in seconds.
        public var timeSinceBootSeconds: Double { Double(timeSinceBootDeciseconds) / 10 }
    }

    /// Decodes the service data after the UUID, starting with the frame type.
    public init(serviceData data: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = ByteReader(data)
        guard try r.u8("Eddystone frame type") == Eddystone.tlmFrameType else {
            throw .invalid(field: "Eddystone frame type", offset: 0, reason: "not TLM (0x20)")
        }
        switch try r.u8("Eddystone-TLM version") {
        case 0x00:
            let battery = try r.u16BigEndian("Eddystone-TLM battery voltage")
            let temperature = Int16(bitPattern: try r.u16BigEndian("Eddystone-TLM temperature"))
            let count = try r.u32BigEndian("Eddystone-TLM advertising PDU count")
            let time = try r.u32BigEndian("Eddystone-TLM time since boot")
            try r.expectEnd("Eddystone-TLM")
            self = .unencrypted(
                Telemetry(
                    batteryMillivolts: battery, temperatureRaw: temperature, advertisingPDUCount: count,
                    timeSinceBootDeciseconds: time))
        case 0x01:
            self = .encrypted(data: Array(r.rest()))
        case let version:
            throw .invalid(field: "Eddystone-TLM version", offset: 1, reason: "unknown version \(version)")
        }
    }

    /// The service data after the UUID.
    public var serviceData: [UInt8] {
        var w = ByteWriter(capacity: 18)
        w.u8(Eddystone.tlmFrameType)
        switch self {
        case let .unencrypted(t):
            w.u8(0x00)
            w.u16BigEndian(t.batteryMillivolts)
            w.u16BigEndian(UInt16(bitPattern: t.temperatureRaw))
            w.u32BigEndian(t.advertisingPDUCount)
            w.u32BigEndian(t.timeSinceBootDeciseconds)
        case let .encrypted(data):
            w.u8(0x01)
            w.append(data)
        }
        return w.bytes
    }

    /// The frame as an AD structure.
    public var adStructure: ADStructure { .serviceData16(uuid: Eddystone.serviceUUID, data: serviceData) }
}
