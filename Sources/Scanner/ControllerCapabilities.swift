import HCI

/// What the init sequence learnt about the controller, and the scanning procedure chosen from it.
public struct ControllerCapabilities: Sendable, Hashable {
    /// The controller's version and manufacturer (Read Local Version Information, Core Spec 5.4, Vol 4, Part E,
    /// §7.4.1).
    public var version: LocalVersionInformation
    /// The commands the controller supports (Read Local Supported Commands, §7.4.2).
    public var commands: LocalSupportedCommands
    /// The LE features the controller supports (LE Read Local Supported Features, §7.8.3).
    public var features: LESupportedFeatures

    /// Creates capabilities from the three answers.
    public init(version: LocalVersionInformation, commands: LocalSupportedCommands, features: LESupportedFeatures) {
        self.version = version
        self.commands = commands
        self.features = features
    }

    /// True when the controller can scan with the extended commands: the LE Extended Advertising feature bit and
    /// both LE Set Extended Scan Parameters/Enable command bits.
    public var supportsExtendedScanning: Bool {
        features.supportsExtendedAdvertising && commands.supportsExtendedScanning
    }

    /// Whether to scan with the extended commands under `procedure`.
    public func usesExtendedScanning(_ procedure: ScanConfiguration.Procedure) -> Bool {
        procedure == .automatic && supportsExtendedScanning
    }
}
