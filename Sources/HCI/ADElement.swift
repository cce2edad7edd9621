/// One AD structure as it stands on the wire, undecoded: its type octet and a slice of its data (no copy).
///
/// Core Spec 5.4, Vol 3, Part C, §11 (advertising and scan response data format): each structure is a length
/// octet, then that many octets of which the first is the AD type and the rest the AD data.
public struct ADElement: Sendable, Hashable {
    /// The AD type octet.
    public var type: ADType
    /// The AD data after the type octet, a slice of the advertising data it was read from.
    public var data: ArraySlice<UInt8>
    /// Where the structure's length octet stands, counted from the start of the advertising data.
    public var offset: Int

    /// Creates an element from its parts.
    @inlinable public init(type: ADType, data: ArraySlice<UInt8>, offset: Int) {
        self.type = type
        self.data = data
        self.offset = offset
    }
}
