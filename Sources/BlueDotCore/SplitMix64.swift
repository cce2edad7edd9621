import FoundationEssentials
import Glibc

/// SplitMix64: a tiny seeded 64-bit generator, the one of BlueDot: it seeds the simulator's `Xoshiro256StarStar`,
/// jitters the scanner's reconnect backoff and drives every seeded test and benchmark stream.
///
/// G. L. Steele, D. Lea, C. H. Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014; constants as
/// in Vigna's reference `splitmix64.c`.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's state: advanced by the golden-ratio increment on each draw.
    public private(set) var state: UInt64

    /// Starts the sequence from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal draw by the Box-Muller transform (Box and Muller, Ann. Math. Statist. 29(2), 1958),
    /// from two uniform draws; the sine twin is discarded so the stream depends only on the seed.
    public mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
