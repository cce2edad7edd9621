/// Hands out one shared `String` per distinct short text, so that readers of observation lines and sighting batches
/// do not build (allocate, validate, later free) a new string for every anchor and target id they read: a stream
/// names the same few hundred ids millions of times.
///
/// A cache with two candidate slots per text (from two halves of one hash): a new text takes an empty one, else
/// overwrites the first. A hit costs the hash and a byte comparison or two; a miss decodes the text as
/// `String(decoding:as:)` does (invalid UTF-8 repaired) and keeps it. 8,192 slots (128 KiB) keep a site's few
/// thousand ids with hardly a miss. Texts longer than `maximumBytes` are decoded and never kept. Not thread-safe: one per reader.
public struct StringTable {
    /// Texts longer than this are not kept.
    public static let maximumBytes = 96
    private var slots: [String?]
    private let mask: Int

    /// A table of `slotCount` slots (rounded up to a power of two, at least 16); with 0 it keeps nothing and every
    /// text is decoded afresh (no memory is allocated for it).
    public init(slotCount: Int = 8192) {
        guard slotCount > 0 else {
            slots = []
            mask = 0
            return
        }
        var n = 16
        while n < slotCount { n <<= 1 }
        slots = Array(repeating: nil, count: n)
        mask = n - 1
    }

    /// The string of `utf8`: the kept one when the same text was seen last in its slot.
    public mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
        guard !slots.isEmpty, utf8.count <= Self.maximumBytes, let start = utf8.baseAddress else {
            return String(decoding: utf8, as: UTF8.self)
        }
        let h = Self.hash(start, utf8.count)
        let first = Int(truncatingIfNeeded: h) & mask
        let second = Int(truncatingIfNeeded: h >> 32) & mask
        if let kept = match(first, utf8) { return kept }
        if let kept = match(second, utf8) { return kept }
        let text = String(decoding: utf8, as: UTF8.self)
        slots[slots[first] != nil && slots[second] == nil ? second : first] = text
        return text
    }

    /// The text in `slot` if it is `utf8`.
    @inline(__always)
    private func match(_ slot: Int, _ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        guard var kept = slots[slot] else { return nil }
        let same = kept.withUTF8 { $0.count == utf8.count && memcmpEqual($0.baseAddress, utf8.baseAddress!, utf8.count) }
        return same ? kept : nil
    }

    /// A hash of the length and of the first and last eight bytes (ids differ in their tails: `…:1:7`, `rx-0042`),
    /// mixed by a multiply-xorshift.
    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        if n >= 8 {
            let raw = UnsafeRawPointer(p)
            h ^= raw.loadUnaligned(as: UInt64.self)
            h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
            h ^= raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        } else {
            for k in 0..<n { h = (h << 8) | (h >> 56) ^ UInt64(p[k]) }
        }
        h = (h ^ (h >> 31)) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 32)
    }
}

/// Whether `count` bytes at `a` and `b` are equal.
@inline(__always)
private func memcmpEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    guard let a else { return count == 0 }
    var k = 0
    while k &+ 8 <= count {
        if UnsafeRawPointer(a + k).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + k).loadUnaligned(as: UInt64.self) {
            return false
        }
        k &+= 8
    }
    while k < count {
        if a[k] != b[k] { return false }
        k &+= 1
    }
    return true
}
