import BlueDotCore
import Foundation
import JSON
import Testing

/// The byte writers of `JSONText` against the plain formulas they replace: the same text for every value.
@Suite struct JSONTextTests {
    /// The definition of `fixed`, written the slow, obvious way: `(|v| x 10^d).rounded()` in integer units,
    /// split at the point, no `-0`; Swift's shortest form past 2^53; `null` when not finite.
    static func referenceFixed(_ value: Double, decimals d: Int) -> String {
        guard value.isFinite else { return "null" }
        let scale = pow(10.0, Double(d))
        let scaled = (value.magnitude * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9_007_199_254_740_992 else { return "\(value)" }
        let units = UInt64(scaled), divisor = UInt64(scale)
        let digits = String(units % divisor)
        let fraction = d == 0 ? "" : "." + String(repeating: "0", count: d - digits.count) + digits
        return (value < 0 && units != 0 ? "-" : "") + String(units / divisor) + fraction
    }

    @Test func fixedMatchesItsDefinitionOnSeededValues() {
        var rng = SplitMix64(seed: 13)
        var checked = 0
        for k in 0..<100_000 {
            let d = k % 10
            let magnitude = pow(10.0, Double(rng.next() % 24) - 8)
            let value = (Double(rng.next() % 2_000_001) / 1_000_000 - 1) * magnitude
            let expected = Self.referenceFixed(value, decimals: d)
            var out: [UInt8] = Array("x".utf8)
            JSONText.appendFixed(value, decimals: d, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x" + expected, "\(value) with \(d) decimals")
            #expect(JSONText.fixed(value, decimals: d) == expected)
            checked += 1
        }
        #expect(checked == 100_000)
        for value in [0.0, -0.0, 0.5, -0.5, 1e-12, 9_007_199_254_740_991, 9.1e15, -9.1e15, .infinity, -.nan, 1.7e308] {
            for d in [0, 3, 9] {
                #expect(JSONText.fixed(value, decimals: d) == Self.referenceFixed(value, decimals: d), "\(value), \(d)")
            }
        }
    }

    /// Numbers of up to 17 characters written after 0-40 bytes of a small scratch, at its end and past it (the
    /// writing runs again with more room): the same text wherever they land.
    @Test func fixedAtTheEndOfTheRoomAndAtSixteenCharacters() {
        let values = [0.0, -0.0, 0.25, -3.5, 52.2205123, -21.0122004, 1_732_400_000.1235, 999_999_999_999.9995,
                      1_234_567_890_123.456, 123_456_789_012_345.6, 9_007_199_254_740_991, -4_503_599_627_370_495.5]
        for value in values {
            for d in 0...9 {
                let expected = Self.referenceFixed(value, decimals: d)
                for prefix in 0...40 {
                    let text = JSONText.text(estimatedBytes: 16) { w in
                        for _ in 0..<prefix { w.byte(UInt8(ascii: "#")) }
                        w.fixed(value, decimals: d)
                    }
                    #expect(text == String(repeating: "#", count: prefix) + expected, "\(value), \(d), after \(prefix)")
                }
            }
        }
    }

    @Test func integersAndCompactNumbers() {
        for value in [0, 1, -1, 9, 10, -10, 1_732_400_000, Int.max, Int.min] {
            var out: [UInt8] = []
            JSONText.appendInteger(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
        for (value, text) in [(-59.0, "-59"), (-59.5, "-59.5"), (0, "0"), (1e9, "1000000000.0"), (.nan, "null")] {
            var out: [UInt8] = []
            JSONText.appendCompact(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == text)
        }
    }

    /// Digit counts come from the bit length with one correction: every power of ten and its neighbours, and the
    /// extremes, give the standard library's digits; hex pairs give `String(radix:)`'s digits at every width.
    @Test func digitsAndHexAtEveryLengthAndWidth() {
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1]
        var p: UInt64 = 10
        for _ in 1...19 {
            values += [p - 1, p, p + 1]
            if p > UInt64.max / 10 { break }
            p *= 10
        }
        for v in values {
            #expect(JSONText.text { $0.digits(v) } == String(v))
            let padded = JSONText.text { $0.digits(v, width: 21) }
            #expect(padded == String(repeating: "0", count: 21 - String(v).count) + String(v))
        }
        let value: UInt64 = 0xF782_6DA6_4FA2_4E98
        let full = String(value, radix: 16)
        for width in 0...16 {
            #expect(JSONText.text { $0.hex(value, digits: width) } == String(full.suffix(width)), "width \(width)")
        }
        #expect(JSONText.text { $0.hex(0xAB, digits: 4) } == "00ab")
    }

    @Test func quotingTakesTheFastPathOnlyForPlainText() {
        #expect(JSONText.quoted("ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7")
                == "\"ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7\"")
        #expect(JSONText.quoted("Küche 🍳") == "\"Küche 🍳\"")
        #expect(JSONText.quoted("a\"b\\c\n\r\t\u{01}\u{1f}é") == #""a\"b\\c\n\r\t\u0001\u001fé""#)
        #expect(JSONText.quoted("") == "\"\"")
        var out: [UInt8] = Array("[".utf8)
        JSONText.appendQuoted("x\"", to: &out)
        JSONText.append(",", to: &out)
        JSONText.appendQuoted("y", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"["x\"","y""#)
    }

    @Test func aWriterThatRunsOutOfRoomIsRunAgainWithMore() {
        let long = String(repeating: "room \"7\" ", count: 300)
        var out: [UInt8] = Array("a\n".utf8)
        var runs = 0
        JSONText.append(to: &out, estimatedBytes: 16) { w in
            runs += 1
            w.literal("{\"name\": ")
            w.quoted(long)
            w.byte(UInt8(ascii: "}"))
        }
        #expect(runs > 1)
        #expect(String(decoding: out, as: UTF8.self) == "a\n{\"name\": " + JSONText.quoted(long) + "}")
        #expect(JSONText.text { $0.trimmedFixed(2.50, decimals: 3) } == "2.5")
        #expect(JSONText.text { $0.trimmedFixed(3, decimals: 2) } == "3")
        #expect(JSONText.text { $0.trimmedFixed(1.5e300, decimals: 2) } == "1.5e+300")
        #expect(JSONText.text { $0.hex(0xBEEF, digits: 6); $0.upperHex(0xAB); $0.digits(7, width: 3) } == "00beefAB007")
    }
}
