/// The commands this module declares, as one value: what a decoded command packet turns into.
///
/// An enum rather than an existential so that callers switch over it without dynamic dispatch.
public enum KnownHCICommand: Sendable, Hashable {
    /// Reset (Core Spec 5.4, Vol 4, Part E, §7.3.2).
    case reset(ResetCommand)
    /// Set Event Mask (§7.3.1).
    case setEventMask(SetEventMaskCommand)
    /// LE Set Event Mask (§7.8.1).
    case leSetEventMask(LESetEventMaskCommand)
    /// Read Local Version Information (§7.4.1).
    case readLocalVersionInformation(ReadLocalVersionInformationCommand)
    /// Read Local Supported Commands (§7.4.2).
    case readLocalSupportedCommands(ReadLocalSupportedCommandsCommand)
    /// LE Read Local Supported Features (§7.8.3).
    case leReadLocalSupportedFeatures(LEReadLocalSupportedFeaturesCommand)
    /// LE Set Scan Parameters (§7.8.10).
    case leSetScanParameters(LESetScanParametersCommand)
    /// LE Set Scan Enable (§7.8.11).
    case leSetScanEnable(LESetScanEnableCommand)
    /// LE Set Extended Scan Parameters (§7.8.64).
    case leSetExtendedScanParameters(LESetExtendedScanParametersCommand)
    /// LE Set Extended Scan Enable (§7.8.65).
    case leSetExtendedScanEnable(LESetExtendedScanEnableCommand)
    /// LE Set Advertising Parameters (§7.8.5).
    case leSetAdvertisingParameters(LESetAdvertisingParametersCommand)
    /// LE Set Advertising Data (§7.8.7).
    case leSetAdvertisingData(LESetAdvertisingDataCommand)
    /// LE Set Advertising Enable (§7.8.9).
    case leSetAdvertisingEnable(LESetAdvertisingEnableCommand)
    /// LE Set Extended Advertising Parameters, version 1 (§7.8.53).
    case leSetExtendedAdvertisingParameters(LESetExtendedAdvertisingParametersCommand)
    /// LE Set Extended Advertising Data (§7.8.54).
    case leSetExtendedAdvertisingData(LESetExtendedAdvertisingDataCommand)
    /// LE Set Extended Advertising Enable (§7.8.56).
    case leSetExtendedAdvertisingEnable(LESetExtendedAdvertisingEnableCommand)

    /// Decodes the parameters of a known opcode; nil for any other opcode.
    public static func decode(opcode: Opcode, parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> KnownHCICommand? {
        switch opcode {
        case ResetCommand.opcode: .reset(try .decode(parameters: parameters))
        case SetEventMaskCommand.opcode: .setEventMask(try .decode(parameters: parameters))
        case LESetEventMaskCommand.opcode: .leSetEventMask(try .decode(parameters: parameters))
        case ReadLocalVersionInformationCommand.opcode: .readLocalVersionInformation(try .decode(parameters: parameters))
        case ReadLocalSupportedCommandsCommand.opcode: .readLocalSupportedCommands(try .decode(parameters: parameters))
        case LEReadLocalSupportedFeaturesCommand.opcode: .leReadLocalSupportedFeatures(try .decode(parameters: parameters))
        case LESetScanParametersCommand.opcode: .leSetScanParameters(try .decode(parameters: parameters))
        case LESetScanEnableCommand.opcode: .leSetScanEnable(try .decode(parameters: parameters))
        case LESetExtendedScanParametersCommand.opcode: .leSetExtendedScanParameters(try .decode(parameters: parameters))
        case LESetExtendedScanEnableCommand.opcode: .leSetExtendedScanEnable(try .decode(parameters: parameters))
        case LESetAdvertisingParametersCommand.opcode: .leSetAdvertisingParameters(try .decode(parameters: parameters))
        case LESetAdvertisingDataCommand.opcode: .leSetAdvertisingData(try .decode(parameters: parameters))
        case LESetAdvertisingEnableCommand.opcode: .leSetAdvertisingEnable(try .decode(parameters: parameters))
        case LESetExtendedAdvertisingParametersCommand.opcode:
            .leSetExtendedAdvertisingParameters(try .decode(parameters: parameters))
        case LESetExtendedAdvertisingDataCommand.opcode: .leSetExtendedAdvertisingData(try .decode(parameters: parameters))
        case LESetExtendedAdvertisingEnableCommand.opcode:
            .leSetExtendedAdvertisingEnable(try .decode(parameters: parameters))
        default: nil
        }
    }

    /// The command's packet.
    public var packet: HCIPacket {
        switch self {
        case let .reset(command): command.packet
        case let .setEventMask(command): command.packet
        case let .leSetEventMask(command): command.packet
        case let .readLocalVersionInformation(command): command.packet
        case let .readLocalSupportedCommands(command): command.packet
        case let .leReadLocalSupportedFeatures(command): command.packet
        case let .leSetScanParameters(command): command.packet
        case let .leSetScanEnable(command): command.packet
        case let .leSetExtendedScanParameters(command): command.packet
        case let .leSetExtendedScanEnable(command): command.packet
        case let .leSetAdvertisingParameters(command): command.packet
        case let .leSetAdvertisingData(command): command.packet
        case let .leSetAdvertisingEnable(command): command.packet
        case let .leSetExtendedAdvertisingParameters(command): command.packet
        case let .leSetExtendedAdvertisingData(command): command.packet
        case let .leSetExtendedAdvertisingEnable(command): command.packet
        }
    }
}
