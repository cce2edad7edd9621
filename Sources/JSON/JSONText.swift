/// Deterministic JSON text for every writer: quoted strings (the one escaper) and fixed-decimal numbers.
///
/// The text is made by `JSONWriter`; `append(to:_:)` runs a writer over scratch memory and appends what it wrote
/// to a byte buffer in one copy, the hot path of every line and payload (a sighting, a fix, a batch). The other
/// functions here are single values for callers that build text piece by piece.
public enum JSONText {
    /// Runs `write` over scratch memory of `estimatedBytes` and appends what it wrote to `out`; when that was too
    /// little room, runs it again with twice as much (so `write` must only write).
    @inlinable
    public static func append(to out: inout [UInt8], estimatedBytes: Int = 256,
                              _ write: (inout JSONWriter) -> Void) {
        var room = max(estimatedBytes, 16)
        while true {
            let done = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { scratch -> Bool in
                var writer = JSONWriter(base: scratch.baseAddress!, capacity: room)
                write(&writer)
                guard !writer.overflowed else { return false }
                out.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: writer.count))
                return true
            }
            if done { return }
            room *= 2
        }
    }

    /// Runs `write` over raw memory another buffer lends (a NIO `ByteBuffer`'s writable bytes, say) and returns
    /// how many bytes it wrote there, or nil when they did not fit (the caller lends more and runs it again).
    @inlinable
    public static func write(into destination: UnsafeMutableRawBufferPointer,
                             _ write: (inout JSONWriter) -> Void) -> Int? {
        guard let raw = destination.baseAddress, destination.count > 0 else { return nil }
        var writer = JSONWriter(base: raw.bindMemory(to: UInt8.self, capacity: destination.count),
                                capacity: destination.count)
        write(&writer)
        return writer.overflowed ? nil : writer.count
    }

    /// What `write` writes, as a `String`.
    @inlinable
    public static func text(estimatedBytes: Int = 256, _ write: (inout JSONWriter) -> Void) -> String {
        var out: [UInt8] = []
        append(to: &out, estimatedBytes: estimatedBytes, write)
        return String(decoding: out, as: UTF8.self)
    }

    /// `value` with exactly `decimals` digits after the point (0 ... 9), rounded half away from zero on the
    /// binary value (`(|v| x 10^d).rounded()`), never written as `-0.000`; `null` when not finite. Magnitudes whose
    /// scaled value reaches 2^53 fall back to Swift's shortest round-trip form, which is also valid JSON.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        text(estimatedBytes: 32) { $0.fixed(value, decimals: decimals) }
    }

    /// Appends `fixed(value, decimals:)` to UTF-8 bytes.
    @inlinable
    public static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        append(to: &out, estimatedBytes: 32) { $0.fixed(value, decimals: decimals) }
    }

    /// Appends the decimal digits of `value` (`-` first when negative).
    @inlinable
    public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        append(to: &out, estimatedBytes: 24) { $0.integer(value) }
    }

    /// Appends literal JSON text (keys with their separators, punctuation) as it is.
    @inlinable
    public static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `value` as a JSON number in Swift's shortest round-trip form (`2.0`, `-59.5`, `1e-05`); `null` if not finite.
    public static func shortest(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// Appends `shortest(value)`, or the integer's digits when `value` is a whole number under 10^9 in magnitude
    /// (`-59`, not `-59.0`): the compact form the MQTT batches use.
    @inlinable
    public static func appendCompact(_ value: Double, to out: inout [UInt8]) {
        append(to: &out, estimatedBytes: 32) { $0.compact(value) }
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 §7); other
    /// characters as they are.
    public static func quoted(_ text: String) -> String {
        Self.text(estimatedBytes: text.utf8.count + 8) { $0.quoted(text) }
    }

    /// Appends `text` as a JSON string literal to UTF-8 bytes (`JSONWriter.quoted`, the one escaper).
    @inlinable
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        append(to: &out, estimatedBytes: text.utf8.count + 8) { $0.quoted(text) }
    }
}
