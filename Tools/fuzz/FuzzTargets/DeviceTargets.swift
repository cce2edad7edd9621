import Devices
import HCI

/// The device registry and what keys are imported from: the files that hold IRKs.
enum DeviceTargets {
    /// Loads the bytes as a registry; one that loads must write (`DeviceRegistryWriter`) and load back to itself,
    /// and every IRK it holds resolves the addresses it makes.
    static func registry(_ bytes: [UInt8]) {
        guard let registry = try? DeviceRegistryFile.parse(bytes, file: "fuzz.devices.json") else { return }
        let text = DeviceRegistryWriter.text(registry)
        guard let again = try? DeviceRegistryFile.parse(Array(text.utf8), file: "rewritten") else {
            fatalError("a registry that loaded did not load once written:\n\(text)")
        }
        check(again == registry, "writing and reading changed the registry")
        guard let identifier = DeviceIdentifier(registry: registry) else { fatalError("libcrypto refused a key") }
        for device in registry.devices {
            for irk in device.irks {
                guard let rpa = PrivateAddress.make(irk: irk, random: UInt32(bytes.count)) else { continue }
                check(identifier.identify(address: rpa, type: .random, beaconID: nil, at: 0) == .device(device.id),
                      "an RPA of \(device.id)'s IRK did not resolve to it")
            }
        }
    }

    /// Parses the bytes as a BlueZ `info` file; an IRK read must be 16 bytes and resolve what it makes.
    static func bluezInfo(_ bytes: [UInt8]) {
        guard let entry = try? BlueZKeys.parseInfo(String(decoding: bytes, as: UTF8.self), address: .zero,
                                                    file: "info") else { return }
        if let irk = entry.irk {
            check(irk.bytes.count == 16 && irk.hex.count == 32, "an IRK of the wrong size")
            if let rpa = PrivateAddress.make(irk: irk, random: 7) {
                check(PrivateAddress.resolves(rpa, with: irk), "an IRK did not resolve its own address")
            }
        }
    }
}
