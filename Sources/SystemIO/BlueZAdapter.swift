#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CBlueZ

/// A local Bluetooth adapter as the kernel reports it (`HCIGETDEVINFO`).
public struct BlueZAdapter: Sendable, Hashable {
    /// The kernel index: `hci<index>`.
    public var index: UInt16
    /// The kernel name, such as `hci0`.
    public var name: String
    /// The public address, most significant byte first.
    public var address: [UInt8]
    /// Whether the adapter is up (`HCI_UP` flag).
    public var isUp: Bool

    /// Lists adapters through an open raw HCI socket, asking each possible index in turn (`HCI_MAX_DEV` of them;
    /// `ENODEV` means no adapter at that index).
    static func list(socket fd: Int32) throws(SystemError) -> [BlueZAdapter] {
        var found: [BlueZAdapter] = []
        for index in 0..<UInt16(HCI_MAX_DEV) {
            var info = hci_dev_info()
            info.dev_id = index
            do throws(SystemError) {
                try System.ioctl(fd, bluedot_HCIGETDEVINFO, &info, label: "ioctl(HCIGETDEVINFO, hci\(index))")
            } catch where error.code == ENODEV {
                continue
            }
            let name = withUnsafeBytes(of: info.name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let address = withUnsafeBytes(of: info.bdaddr.b) { Array($0.reversed()) }
            let isUp = info.flags & (1 << UInt32(HCI_UP)) != 0
            found.append(BlueZAdapter(index: index, name: name, address: address, isUp: isUp))
        }
        return found
    }

    /// The adapter `selector` names among `adapters`, if any.
    static func find(_ selector: AdapterSelector, in adapters: [BlueZAdapter]) -> BlueZAdapter? {
        switch selector {
        case let .index(index): adapters.first { $0.index == index }
        case let .address(address): adapters.first { $0.address == address }
        }
    }
}
