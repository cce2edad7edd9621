import BlueDotCore
import Foundation
import Testing

/// RFC 3339 times, checked against Foundation's `ISO8601DateFormatter` (ICU's calendar: an independent
/// implementation) over random instants from year 1600 to 9999 (ICU's calendar is Julian before 1582), and on the forms and mistakes of hand-written times.
@Suite struct InternetTimeTests {
    @Test func formatsAndParsesAsFoundationDoes() throws {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SplitMix64(seed: 20261126)
        for k in 0..<5000 {
            // Whole milliseconds, so that both sides round the same instant.
            let millis = Int64(rng.next() % 265_078_396_799_000) - 11_676_096_000_000
            let seconds = Double(millis) / 1000
            let date = Date(timeIntervalSince1970: seconds)
            let ours = InternetTime.format(seconds, fractionDigits: 3)
            #expect(ours == fractional.string(from: date), "instant \(k): \(seconds)")
            #expect(InternetTime.format(seconds.rounded(.down)) == plain.string(from: Date(timeIntervalSince1970: seconds.rounded(.down))))
            let parsed = try #require(InternetTime.parse(ours))
            #expect(abs(parsed - seconds) < 1e-6, "\(ours)")
        }
    }

    @Test func readsOffsetsFractionsAndLeapSeconds() throws {
        let cases: [(String, Double)] = [
            ("1970-01-01T00:00:00Z", 0),
            ("2024-05-01T12:00:00.250+02:00", 1_714_557_600.25),
            ("2024-05-01t10:00:00z", 1_714_557_600),
            ("2024-02-29T23:59:59-00:30", 1_709_252_999),
            ("2016-12-31T23:59:60Z", 1_483_228_800),
            ("1969-12-31T23:59:59.5Z", -0.5),
        ]
        for (text, expected) in cases {
            let parsed = try #require(InternetTime.parse(text), "\(text)")
            #expect(abs(parsed - expected) < 1e-9, "\(text)")
        }
    }

    @Test func refusesWhatIsNotATime() {
        for text in ["", "2024-05-01", "2024-05-01T10:00:00", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z",
                     "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+2:00",
                     "2024-05-01T10:00:00+02:00 ", "24-05-01T10:00:00Z", "2024-05-01 10:00:00Z"] {
            #expect(InternetTime.parse(text) == nil, "\(text)")
        }
    }
}
