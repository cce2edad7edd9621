import BlueDotCore
import HCI
import Logging

/// The command side of one connection to a controller: the init sequence, scan start and scan stop, each command
/// under a deadline.
///
/// Init sequence: Reset, Read Local Version Information, Read Local Supported Commands, LE Read Local Supported
/// Features, Set Event Mask, LE Set Event Mask, then disable any scan in progress (Command Disallowed is
/// ignored). Core Spec 5.4, Vol 4, Part E, §7.3.2, §7.4.1, §7.4.2, §7.8.3, §7.3.1, §7.8.1, §7.8.11 and §7.8.65.
struct ControllerSession: Sendable {
    /// The events the host asks for: the controller's defaults with LE Meta (bit 61) and Hardware Error (bit 15).
    static let eventMask = SetEventMaskCommand(eventMask: SetEventMaskCommand.defaultWithLEMeta.eventMask | 1 << 15)
    /// The LE subevents the host asks for: LE Advertising Report and LE Extended Advertising Report.
    static let leEventMask = LESetEventMaskCommand(
        leEventMask: LESetEventMaskCommand.advertisingReportBit | LESetEventMaskCommand.extendedAdvertisingReportBit)

    let transport: any HCITransport
    let channel: CommandChannel
    let configuration: ScanConfiguration
    let recorder: (any HCIPacketRecorder)?
    let clock: any BlueDotClock
    let logger: Logger

    /// Runs the init sequence and returns what the controller supports.
    func initialize() async throws(ScannerError) -> ControllerCapabilities {
        _ = try await execute(ResetCommand(), "Reset")
        let version = try await query(ReadLocalVersionInformationCommand(), LocalVersionInformation.self,
                                      "Read Local Version Information")
        let commands = try await query(ReadLocalSupportedCommandsCommand(), LocalSupportedCommands.self,
                                       "Read Local Supported Commands")
        let features = try await query(LEReadLocalSupportedFeaturesCommand(), LESupportedFeatures.self,
                                       "LE Read Local Supported Features")
        _ = try await execute(Self.eventMask, "Set Event Mask")
        _ = try await execute(Self.leEventMask, "LE Set Event Mask")
        let capabilities = ControllerCapabilities(version: version, commands: commands, features: features)
        try await disableScanning(extended: capabilities.supportsExtendedScanning, ignoringDisallowed: true)
        logger.info("controller ready", metadata: [
            "transport": "\(transport.name)", "hciVersion": "\(version.hciVersion)",
            "manufacturer": "\(version.manufacturer)", "extendedScanning": "\(capabilities.supportsExtendedScanning)",
        ])
        return capabilities
    }

    /// Sets the scan parameters and enables scanning; returns true when the extended commands were used.
    func startScanning(_ capabilities: ControllerCapabilities) async throws(ScannerError) -> Bool {
        let extended = capabilities.usesExtendedScanning(configuration.procedure)
        let timing = try configuration.timingUnits(extended: extended)
        if extended {
            let phy = LESetExtendedScanParametersCommand.PHYParameters(
                scanType: configuration.scanType, scanIntervalUnits: timing.interval, scanWindowUnits: timing.window)
            _ = try await execute(LESetExtendedScanParametersCommand(le1M: phy), "LE Set Extended Scan Parameters")
            _ = try await execute(
                LESetExtendedScanEnableCommand(enable: true, filterDuplicates: configuration.filterDuplicates ? 1 : 0),
                "LE Set Extended Scan Enable")
        } else {
            _ = try await execute(
                LESetScanParametersCommand(
                    scanType: configuration.scanType, scanIntervalUnits: timing.interval, scanWindowUnits: timing.window),
                "LE Set Scan Parameters")
            _ = try await execute(
                LESetScanEnableCommand(enable: true, filterDuplicates: configuration.filterDuplicates),
                "LE Set Scan Enable")
        }
        logger.info("scanning", metadata: [
            "procedure": "\(extended ? "extended" : "legacy")", "active": "\(configuration.active)",
            "intervalMs": "\(ScanConfiguration.milliseconds(Int(timing.interval)))",
            "windowMs": "\(ScanConfiguration.milliseconds(Int(timing.window)))",
        ])
        return extended
    }

    /// Starts the configured advertisement with the command family the scan uses (`extended`). A controller that
    /// refuses (no advertising beside scanning, an unknown command) is logged and reported as false: scanning goes
    /// on. A link that fails still throws.
    func startAdvertising(_ advertisement: ScanConfiguration.Advertisement, extended: Bool) async throws(ScannerError)
        -> Bool
    {
        do throws(ScannerError) {
            let units = try advertisement.intervalUnits()
            // `ScanConfiguration.validate()` checked the data's length before the scanner ran.
            if extended {
                _ = try await execute(
                    LESetExtendedAdvertisingParametersCommand(
                        handle: Self.advertisingHandle, properties: .legacy, intervalMinUnits: UInt32(units),
                        intervalMaxUnits: UInt32(units)),
                    "LE Set Extended Advertising Parameters")
                _ = try await execute(
                    LESetExtendedAdvertisingDataCommand(handle: Self.advertisingHandle, data: advertisement.data)!,
                    "LE Set Extended Advertising Data")
                _ = try await execute(
                    LESetExtendedAdvertisingEnableCommand(enable: true, sets: [.init(handle: Self.advertisingHandle)]),
                    "LE Set Extended Advertising Enable")
            } else {
                _ = try await execute(
                    LESetAdvertisingParametersCommand(
                        intervalMinUnits: units, intervalMaxUnits: units, advertisingType: .nonConnectableUndirected),
                    "LE Set Advertising Parameters")
                _ = try await execute(LESetAdvertisingDataCommand(data: advertisement.data)!, "LE Set Advertising Data")
                _ = try await execute(LESetAdvertisingEnableCommand(enable: true), "LE Set Advertising Enable")
            }
            logger.info("advertising", metadata: [
                "procedure": "\(extended ? "extended" : "legacy")", "octets": "\(advertisement.data.count)",
                "intervalMs": "\(ScanConfiguration.milliseconds(Int(units)))",
            ])
            return true
        } catch {
            guard !error.isTransportFailure else { throw error }
            logger.warning("the controller refused to advertise; scanning goes on without it", metadata: [
                "transport": "\(transport.name)", "error": "\(error)",
            ])
            return false
        }
    }

    /// Stops advertising, best effort: failures are only logged (the link is about to close, or Reset follows).
    func stopAdvertising(extended: Bool) async {
        do {
            if extended {
                _ = try await execute(LESetExtendedAdvertisingEnableCommand(enable: false, sets: []),
                                      "LE Set Extended Advertising Enable", allowing: [.commandDisallowed])
            } else {
                _ = try await execute(LESetAdvertisingEnableCommand(enable: false), "LE Set Advertising Enable",
                                      allowing: [.commandDisallowed])
            }
        } catch {
            logger.warning("could not stop advertising", metadata: ["error": "\(error)"])
        }
    }

    /// The advertising set a receiver's advertisement uses.
    static let advertisingHandle: UInt8 = 0

    /// Disables scanning with the command set in use; Command Disallowed (not scanning) is accepted when asked.
    func disableScanning(extended: Bool, ignoringDisallowed: Bool) async throws(ScannerError) {
        let allowed: Set<HCIStatus> = ignoringDisallowed ? [.commandDisallowed] : []
        if extended {
            _ = try await execute(LESetExtendedScanEnableCommand(enable: false), "LE Set Extended Scan Enable",
                                  allowing: allowed)
        } else {
            _ = try await execute(LESetScanEnableCommand(enable: false), "LE Set Scan Enable", allowing: allowed)
        }
    }

    /// Sends a command and returns its Command Complete event; any status but success (or one in `allowed`) is
    /// `ScannerError.commandFailed` naming the command.
    func execute<C: HCICommand>(
        _ command: C, _ name: String, allowing allowed: Set<HCIStatus> = []
    ) async throws(ScannerError) -> CommandCompleteEvent? {
        let packet = command.packet
        let transport = self.transport
        let recorder = self.recorder
        let clock = self.clock
        logger.debug("command", metadata: ["name": "\(name)"])
        let reply = try await channel.request(opcode: C.opcode, name: name, timeout: configuration.commandTimeout) {
            recorder?.record(packet, direction: .hostToController, timestamp: clock.now())
            try await transport.send(packet)
        }
        switch reply {
        case let .complete(event):
            guard let status = event.status else {
                throw .malformedReply(command: name, reason: "Command Complete without a status")
            }
            guard status.isSuccess || allowed.contains(status) else { throw .commandFailed(command: name, status: status) }
            return event
        case let .status(event):
            guard event.status.isSuccess || allowed.contains(event.status) else {
                throw .commandFailed(command: name, status: event.status)
            }
            return nil
        }
    }

    /// Sends a command and decodes its typed return parameters.
    func query<C: HCICommand, R: HCIReturnParameters>(
        _ command: C, _ type: R.Type, _ name: String
    ) async throws(ScannerError) -> R {
        guard let event = try await execute(command, name) else {
            throw .malformedReply(command: name, reason: "Command Status instead of Command Complete")
        }
        do {
            return try event.returnParameters(as: type)
        } catch {
            throw .malformedReply(command: name, reason: "\(error)")
        }
    }
}
