/// RFC 3339 times (the internet profile of ISO 8601): `2024-05-01T10:00:00Z`, `2024-05-01T12:00:00.250+02:00`.
/// GPX files, the history's GPX export and the history API's `from`/`to` use them; BlueDot's own formats carry
/// seconds since 1970 (UTC) instead.
public enum InternetTime {
    /// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction
    /// of a second (`.` and one or more digits), then `Z` or an offset `±HH:MM`. `T` and `Z` may be lower case.
    /// A leap second (`:60`) counts as the first second of the next minute. Nil for anything else, out-of-range
    /// fields (`2023-02-29`, `24:00:00`) included.
    public static func parse(_ text: some StringProtocol) -> Double? {
        var reader = Digits(text.utf8)
        guard let year = reader.number(4), reader.take(UInt8(ascii: "-")),
              let month = reader.number(2), reader.take(UInt8(ascii: "-")),
              let day = reader.number(2), reader.take(UInt8(ascii: "T")) || reader.take(UInt8(ascii: "t")),
              let hour = reader.number(2), reader.take(UInt8(ascii: ":")),
              let minute = reader.number(2), reader.take(UInt8(ascii: ":")),
              let second = reader.number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if reader.take(UInt8(ascii: ".")) {
            var scale = 0.1
            var any = false
            while let d = reader.digit() {
                fraction += Double(d) * scale
                scale /= 10
                any = true
            }
            guard any else { return nil }
        }
        var offsetMinutes = 0
        if reader.take(UInt8(ascii: "Z")) || reader.take(UInt8(ascii: "z")) {
            offsetMinutes = 0
        } else {
            let sign: Int
            if reader.take(UInt8(ascii: "+")) { sign = 1 } else if reader.take(UInt8(ascii: "-")) { sign = -1 } else {
                return nil
            }
            guard let h = reader.number(2), reader.take(UInt8(ascii: ":")), let m = reader.number(2), h < 24, m < 60
            else { return nil }
            offsetMinutes = sign * (h * 60 + m)
        }
        guard reader.atEnd else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offsetMinutes * 60
        return Double(seconds) + fraction
    }

    /// `seconds` since 1970 (UTC) as `YYYY-MM-DDTHH:MM:SSZ`, with `fractionDigits` (0 to 9) digits of the second
    /// after a point when above 0. The second is rounded to that many digits. Nil-free: a time before year 0 or
    /// after 9999, or not finite, is written as the nearest of those ends' representable days (it cannot happen for
    /// a clock's reading).
    public static func format(_ seconds: Double, fractionDigits: Int = 0) -> String {
        let digits = min(max(fractionDigits, 0), 9)
        var unit = 1.0
        for _ in 0..<digits { unit *= 10 }
        let limit = 253_402_300_799.0 // 9999-12-31T23:59:59Z
        let clamped = seconds.isFinite ? min(max(seconds, -62_167_219_200), limit) : 0
        let ticks = (clamped * unit).rounded()
        let tickUnit = Int64(unit)
        var whole = Int64((ticks / unit).rounded(.down))
        var part = Int64(ticks) - whole * tickUnit
        if part < 0 { part += tickUnit; whole -= 1 }
        let days = Int(floorDivide(whole, 86_400))
        let secondOfDay = Int(whole - Int64(days) * 86_400)
        let (year, month, day) = civil(daysSince1970: days)
        var out = ""
        out.reserveCapacity(32)
        func pad(_ value: Int, _ width: Int) {
            let text = String(value)
            if text.count < width { out += String(repeating: "0", count: width - text.count) }
            out += text
        }
        pad(year, 4); out += "-"; pad(month, 2); out += "-"; pad(day, 2); out += "T"
        pad(secondOfDay / 3600, 2); out += ":"; pad(secondOfDay / 60 % 60, 2); out += ":"; pad(secondOfDay % 60, 2)
        if digits > 0 {
            out += "."
            pad(Int(part), digits)
        }
        return out + "Z"
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (negative before it).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        // Years counted from March, so that the leap day ends a year: 400-year eras of 146,097 days.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (the inverse of `daysSince1970`).
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Reads ASCII digits and single characters from UTF-8.
    private struct Digits<Bytes: Collection> where Bytes.Element == UInt8 {
        var bytes: Bytes
        var index: Bytes.Index

        init(_ bytes: Bytes) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var atEnd: Bool { index == bytes.endIndex }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index != bytes.endIndex, bytes[index] == byte else { return false }
            bytes.formIndex(after: &index)
            return true
        }

        mutating func digit() -> Int? {
            guard index != bytes.endIndex, (48...57).contains(bytes[index]) else { return nil }
            defer { bytes.formIndex(after: &index) }
            return Int(bytes[index] - 48)
        }

        /// Exactly `count` digits.
        mutating func number(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let d = digit() else { return nil }
                value = value * 10 + d
            }
            return value
        }
    }
}
