import Devices
import FoundationEssentials
import Logging

extension GatewayConfiguration {
    /// The device registry the configuration names (`devices`), read once at start, as the identifier every input
    /// and the solver ask; without one, only beacons (and the venue's anchors named by address, `anchorIDs`) are
    /// known. A bad registry stops start-up with the file and the field (`DeviceRegistryError`).
    public func deviceIdentifier(anchorIDs: [String] = [], logger: Logger) throws -> DeviceIdentifier {
        // An editable gateway's registry file may not exist yet: the set-up page saves the first one.
        let missing = editable && devicesPath.map { !FileManager.default.fileExists(atPath: $0) } == true
        let registry = try devicesPath.flatMap { (path) throws(DeviceRegistryError) in
            missing ? nil : try DeviceRegistryFile.load(path: path)
        } ?? .empty
        guard let identifier = DeviceIdentifier(registry: registry, anchorIDs: anchorIDs,
                                                listUnknown: listUnknownDevices ? logger : nil) else {
            throw ConfigurationError(location: devicesPath ?? "devices", key: "devices",
                                     reason: .badValue("libcrypto refused an IRK"))
        }
        if let devicesPath, !missing {
            logger.info("device registry", metadata: [
                "path": "\(devicesPath)", "devices": "\(registry.devices.count)",
                "irks": "\(registry.devices.reduce(0) { $0 + $1.irks.count })",
            ])
        }
        return identifier
    }
}
