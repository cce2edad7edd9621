import HCI

/// How the scanner asks the controller to scan: passive or active, timing, duplicate filtering and the
/// legacy/extended choice.
///
/// Scan interval and window are sent in units of 0.625 ms. Core Spec 5.4, Vol 4, Part E, §7.8.10 (legacy: 0x0004
/// to 0x4000, 2.5 ms to 10.24 s) and §7.8.64 (extended: 0x0004 to 0xFFFF, 2.5 ms to 40.96 s); the window never
/// exceeds the interval.
public struct ScanConfiguration: Sendable, Hashable {
    /// Which scanning commands to use.
    public enum Procedure: String, Sendable, Hashable {
        /// Extended scanning when the controller supports it (LE feature bit and supported-command bits), legacy
        /// otherwise.
        case automatic
        /// Legacy scanning (LE Set Scan Parameters/Enable) even on controllers that support extended scanning.
        case legacy
    }

    /// Send scan requests and hear scan responses (true), or listen only (false).
    public var active: Bool
    /// Time between the starts of two scan windows.
    public var interval: Duration
    /// How long the controller listens in each interval.
    public var window: Duration
    /// Ask the controller to drop duplicate reports. Off by default: every RSSI sample matters for positioning.
    public var filterDuplicates: Bool
    /// Legacy or extended scanning.
    public var procedure: Procedure
    /// The deadline for the controller to answer each command.
    public var commandTimeout: Duration
    /// What to advertise while scanning, non-connectable; nil (the default) advertises nothing.
    public var advertisement: Advertisement?

    /// Advertising while scanning: one non-connectable, non-scannable set of legacy PDUs (every scanner hears
    /// those), sent with the command family the scan uses, since a controller refuses to mix them (Core Spec 5.4,
    /// Vol 4, Part E, §3.1.1).
    public struct Advertisement: Sendable, Hashable {
        /// The advertising data, at most 31 octets.
        public var data: [UInt8]
        /// Time between advertising events, 20 ms to 10.24 s.
        public var interval: Duration

        /// Creates the advertisement; the default interval is 100 ms, a beacon's.
        public init(data: [UInt8], interval: Duration = .milliseconds(100)) {
            self.data = data
            self.interval = interval
        }

        /// The interval in units of 0.625 ms, checked against 0x0020...0x4000.
        func intervalUnits() throws(ScannerError) -> UInt16 {
            let units = try ScanConfiguration.units(interval, field: "advertisement.interval", maximum: 0x4000)
            guard units >= 0x20 else {
                throw .invalidConfiguration(field: "advertisement.interval",
                                            reason: "\(ScanConfiguration.milliseconds(units)) ms is under 20 ms")
            }
            return UInt16(units)
        }
    }

    /// Creates a configuration; the defaults scan passively and continuously (100 ms window every 100 ms).
    public init(
        active: Bool = false,
        interval: Duration = .milliseconds(100),
        window: Duration = .milliseconds(100),
        filterDuplicates: Bool = false,
        procedure: Procedure = .automatic,
        commandTimeout: Duration = .seconds(2),
        advertisement: Advertisement? = nil
    ) {
        self.active = active
        self.interval = interval
        self.window = window
        self.filterDuplicates = filterDuplicates
        self.procedure = procedure
        self.commandTimeout = commandTimeout
        self.advertisement = advertisement
    }

    /// The scan type byte for the scan parameter commands.
    public var scanType: LEScanType { active ? .active : .passive }

    /// The interval and window in 0.625 ms units, checked against the range of the chosen procedure.
    ///
    /// Durations are rounded to the nearest unit; the rounded values are what is checked.
    public func timingUnits(extended: Bool) throws(ScannerError) -> (interval: UInt16, window: UInt16) {
        let maximum = extended ? Self.maximumExtendedUnits : Self.maximumLegacyUnits
        let interval = try Self.units(self.interval, field: "interval", maximum: maximum)
        let window = try Self.units(self.window, field: "window", maximum: maximum)
        guard window <= interval else {
            throw .invalidConfiguration(
                field: "window", reason: "\(Self.milliseconds(window)) ms exceeds the interval \(Self.milliseconds(interval)) ms")
        }
        return (UInt16(interval), UInt16(window))
    }

    /// Checks the deadline and the timing against the widest range the procedure may use (extended for
    /// `.automatic`); the session checks again against the range of the procedure it picks.
    public func validate() throws(ScannerError) {
        _ = try timingUnits(extended: procedure == .automatic)
        guard commandTimeout > .zero else {
            throw .invalidConfiguration(field: "commandTimeout", reason: "must be positive")
        }
        if let advertisement {
            _ = try advertisement.intervalUnits()
            guard advertisement.data.count <= LESetAdvertisingDataCommand.maximumLength else {
                throw .invalidConfiguration(
                    field: "advertisement.data", reason: "\(advertisement.data.count) octets; a legacy PDU carries 31")
            }
        }
    }

    /// The smallest interval or window, in units of 0.625 ms (2.5 ms).
    public static let minimumUnits = 0x0004
    /// The largest legacy interval or window, in units of 0.625 ms (10.24 s).
    public static let maximumLegacyUnits = 0x4000
    /// The largest extended interval or window, in units of 0.625 ms (40.96 s).
    public static let maximumExtendedUnits = 0xFFFF

    static func units(_ duration: Duration, field: String, maximum: Int) throws(ScannerError) -> Int {
        let (seconds, attoseconds) = duration.components
        let microseconds = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        let units = (microseconds / 625).rounded()
        guard units >= Double(minimumUnits), units <= Double(maximum) else {
            let low = milliseconds(minimumUnits)
            let high = milliseconds(maximum)
            throw .invalidConfiguration(
                field: field, reason: "\(microseconds / 1000) ms is outside \(low) ms ... \(high) ms")
        }
        return Int(units)
    }

    static func milliseconds(_ units: Int) -> Double { Double(units) * 0.625 }
}
