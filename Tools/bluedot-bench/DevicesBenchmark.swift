import BlueDotCore
import Devices
import Foundation
import HCI

/// `bluedot-bench devices`: what identifying every report costs (`DeviceIdentifier.identify`, the receivers' hot
/// path) with `--irks` registry devices among `--strangers` strangers' private addresses per second.
///
/// Two crowds, each `--seconds` of simulated time, every address heard once a second:
/// - `steady`: the registry's devices and `--strangers` strangers, each keeping its RPA for `--rotate` seconds
///   (phones: about 15 minutes), so new addresses are rare and nearly every report is a cache look-up;
/// - `churn`: the worst case, `--strangers` never-seen private addresses every second (each one pass of `ah` over
///   every key, then remembered), beside the devices.
/// Prints CPU nanoseconds per report and per new address, the resolver's counts, and peak resident memory.
enum DevicesBenchmark {
    static func run(_ arguments: [String]) throws {
        var irks = 100, strangers = 1000, seconds = 60, rotate = 900.0
        var k = 0
        while k < arguments.count {
            switch arguments[k] {
            case "--irks": k += 1; irks = Int(arguments[k]) ?? irks
            case "--strangers": k += 1; strangers = Int(arguments[k]) ?? strangers
            case "--seconds": k += 1; seconds = Int(arguments[k]) ?? seconds
            case "--rotate": k += 1; rotate = Double(arguments[k]) ?? rotate
            default: throw BenchmarkError.usage("unknown option \(arguments[k])")
            }
            k += 1
        }
        var rng = SplitMix64(seed: 31)
        var devices: [Device] = []
        for i in 0..<irks {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
            devices.append(Device(id: "device-\(i)", name: "Device \(i)", irks: [IdentityResolvingKey(bytes: bytes)!]))
        }
        let registry = try DeviceRegistry(devices: devices)
        print("devices: \(irks) IRKs, \(strangers) strangers' private addresses per second, \(seconds) s of reports")
        for crowd in ["steady", "churn"] {
            guard let identifier = DeviceIdentifier(registry: registry) else {
                throw BenchmarkError.usage("libcrypto refused a key")
            }
            // Each second's reports: every device's current RPA, every stranger's.
            var reports = 0, known = 0
            var cpu = 0.0
            for second in 0..<seconds {
                let t = Double(second)
                var batch: [BDAddress] = []
                batch.reserveCapacity(irks + strangers)
                let epoch = UInt32(t / rotate)
                for (i, d) in devices.enumerated() {
                    batch.append(PrivateAddress.make(irk: d.irks[0], random: UInt32(i) &* 7919 &+ epoch &* 104_729)!)
                }
                for s in 0..<strangers {
                    let fresh = crowd == "churn" ? UInt64(second) : UInt64(epoch)
                    let r = (UInt64(s) << 20 | fresh) &* 0x9E37_79B9_7F4A_7C15
                    // A resolvable private address: top bits 01, the rest anything (no registry key made it).
                    batch.append(BDAddress(rawValue: 0x4000_0000_0000 | (r >> 16) & 0x3FFF_FFFF_FFFF))
                }
                let start = ResourceUsage.cpuSeconds()
                for address in batch {
                    if case .device = identifier.identify(address: address, type: .random, beaconID: nil, at: t) {
                        known += 1
                    }
                }
                cpu += ResourceUsage.cpuSeconds() - start
                reports += batch.count
            }
            let s = identifier.statistics
            precondition(known == irks * seconds, "resolved \(known) device reports of \(irks * seconds)")
            print("  \(crowd): \(reports) reports, \(String(format: "%.0f", cpu / Double(reports) * 1e9)) ns per report "
                  + "(\(String(format: "%.3f", cpu)) s CPU); \(s.resolver.passes) passes over the keys "
                  + "(new addresses), \(s.resolver.resolvedHits) resolved-cache and \(s.resolver.strangerHits) "
                  + "negative-cache hits, \(s.strangers) stranger reports, caches \(s.resolver.resolvedCached) + "
                  + "\(s.resolver.strangersCached)")
        }
        // One pass alone: ah over every key for an address no key made.
        let resolverKeys = devices.enumerated().map { ($1.irks[0], owner: $0) }
        var resolver = AddressResolver(keys: resolverKeys)!
        let passes = 20_000
        let start = ResourceUsage.cpuSeconds()
        for n in 0..<passes {
            _ = resolver.resolve(BDAddress(rawValue: 0x4000_0000_0000 | (UInt64(n) &* 0x1_0000_0001) & 0x3FFF_FFFF_FFFF), at: 0)
        }
        let perPass = (ResourceUsage.cpuSeconds() - start) / Double(passes)
        precondition(resolver.statistics.passes == passes, "every address took a pass")
        print(String(format: "  one pass over %d keys (a new address): %.1f µs, %.0f ns per ah", irks, perPass * 1e6,
                     perPass / Double(max(1, irks)) * 1e9))
        print("  peak resident memory: \(ResourceUsage.peakResidentKiB() / 1024) MiB")
    }
}
