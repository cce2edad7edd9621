import FoundationEssentials
import Glibc

/// The continuous draws simulations need, from any `RandomNumberGenerator` (seeded ones in tests and tools).
public enum RandomDraws {
    /// A uniform double in (0, 1]: 53 random bits, never 0 (so logarithms are finite).
    public static func unitOpenClosed(using rng: inout some RandomNumberGenerator) -> Double {
        Double((rng.next() >> 11) + 1) * 0x1p-53
    }

    /// A uniform double in [0, 1).
    public static func unit(using rng: inout some RandomNumberGenerator) -> Double {
        Double(rng.next() >> 11) * 0x1p-53
    }

    /// A normal draw with the given mean and standard deviation, by the Box-Muller transform
    /// (G. E. P. Box, M. E. Muller, Ann. Math. Statist. 29(2) 1958): `z = sqrt(-2 ln u1) cos(2 pi u2)`.
    /// Uses two uniforms per draw and discards the sine twin, so the stream of draws depends only on the seed.
    public static func normal(mean: Double = 0, standardDeviation sigma: Double,
                              using rng: inout some RandomNumberGenerator) -> Double {
        let u1 = unitOpenClosed(using: &rng)
        let u2 = unit(using: &rng)
        let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        return mean + sigma * z
    }

    /// An exponential draw with the given rate (mean 1 / rate): `-ln(u) / rate`, u in (0, 1].
    public static func exponential(rate: Double, using rng: inout some RandomNumberGenerator) -> Double {
        -log(unitOpenClosed(using: &rng)) / rate
    }
}
