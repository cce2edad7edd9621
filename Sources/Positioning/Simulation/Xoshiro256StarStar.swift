import BlueDotCore

/// xoshiro256**: the seeded generator of simulations (fast, 256-bit state, passes BigCrush).
///
/// D. Blackman, S. Vigna, "Scrambled Linear Pseudorandom Number Generators", ACM TOMS 47(4) 2021. The state is
/// filled from a `SplitMix64` stream of the seed, as the authors recommend, so every seed (0 included) is usable.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Seeds the generator.
    public init(seed: UInt64) {
        var seeder = SplitMix64(seed: seed)
        s0 = seeder.next()
        s1 = seeder.next()
        s2 = seeder.next()
        s3 = seeder.next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// Rotates the bits of `x` left by `k`.
    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
