import CalibrationKit
import Scanner

extension SurveyReading {
    /// The reading of a sighting (anchor = its canonical id), nil when the report carried no RSSI.
    init?(_ s: Sighting) {
        guard let rssi = s.rssiDBm else { return nil }
        self.init(t: s.timestamp, anchor: s.id, rssiDBm: Double(rssi), txPowerDBm: s.txPowerDBm.map(Double.init))
    }
}
