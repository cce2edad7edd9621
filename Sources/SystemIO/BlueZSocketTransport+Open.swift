#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CBlueZ
import HCI

extension BlueZSocketTransport {
    /// Opens, configures and binds the HCI socket; every failure becomes the `SystemIOError` that says what to do.
    /// `previous`: the address of the controller the last open found, if any (`SystemIOError.adapterMoved`).
    static func openSocket(adapter: AdapterSelector, channel: Channel, previous: [UInt8]?)
        throws(SystemIOError) -> (descriptor: Int32, adapter: BlueZAdapter)
    {
        let fd: Int32
        do throws(SystemError) {
            fd = try System.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), BTPROTO_HCI,
                                   label: "socket(AF_BLUETOOTH)")
        } catch {
            switch error.code {
            case EAFNOSUPPORT, EPROTONOSUPPORT: throw .noBluetoothSupport(error)
            case EPERM, EACCES: throw .missingCapability("CAP_NET_RAW", error)
            default: throw .system(transport: adapter.description, error)
            }
        }
        do throws(SystemIOError) {
            return (fd, try configure(fd, adapter: adapter, channel: channel, previous: previous))
        } catch {
            System.close(fd)
            throw error
        }
    }

    private static func configure(_ fd: Int32, adapter: AdapterSelector, channel: Channel, previous: [UInt8]?)
        throws(SystemIOError) -> BlueZAdapter
    {
        let name = adapter.description
        let adapters: [BlueZAdapter]
        do throws(SystemError) {
            adapters = try BlueZAdapter.list(socket: fd)
        } catch {
            throw map(error, adapter: name)
        }
        guard let found = BlueZAdapter.find(adapter, in: adapters) else {
            if case .index = adapter, let previous, let moved = adapters.first(where: { $0.address == previous }) {
                throw .adapterMoved(adapter: name, now: moved.name, address: AdapterSelector.format(previous))
            }
            throw .noSuchAdapter(name, available: adapters.map { "\($0.name) (\(AdapterSelector.format($0.address)))" })
        }
        do throws(SystemError) {
            switch channel {
            case .raw:
                // An adapter in the kernel's auto power-off window (set up without bluetoothd, to be powered off
                // 2 s later: `HCI_AUTO_OFF`) is listed as down, so it gets `HCIDEVUP` too, which cancels the
                // power-off. Checked in the VM test (`Tools/vm`): a scan started in that window keeps its adapter.
                if !found.isUp { try bringUp(fd, index: found.index) }
                try System.setsockopt(fd, Int32(SOL_HCI), HCI_FILTER, eventFilter(), label: "setsockopt(HCI_FILTER)")
                try System.bind(fd, address(index: found.index, channel: UInt16(HCI_CHANNEL_RAW)),
                                label: "bind(\(found.name), HCI_CHANNEL_RAW)")
            case .user:
                try System.bind(fd, address(index: found.index, channel: UInt16(HCI_CHANNEL_USER)),
                                label: "bind(\(found.name), HCI_CHANNEL_USER)")
            }
        } catch {
            if channel == .user && error.code == EBUSY { throw .adapterBusy(adapter: found.name) }
            throw map(error, adapter: found.name)
        }
        return found
    }

    /// `HCIDEVUP`; `EALREADY` means another process won the race, which is fine.
    private static func bringUp(_ fd: Int32, index: UInt16) throws(SystemError) {
        do throws(SystemError) {
            try System.ioctl(fd, bluedot_HCIDEVUP, Int32(index), label: "ioctl(HCIDEVUP, hci\(index))")
        } catch where error.code == EALREADY {
            return
        }
    }

    /// Maps the errors every step shares: capabilities, rfkill, a vanished adapter.
    private static func map(_ error: SystemError, adapter: String) -> SystemIOError {
        switch error.code {
        case EPERM, EACCES:
            return .missingCapability(error.call.hasPrefix("ioctl(HCIDEVUP") ? "CAP_NET_ADMIN" : "CAP_NET_RAW", error)
        case ERFKILL:
            return .rfkillBlocked(adapter: adapter)
        case ENODEV:
            return .noSuchAdapter(adapter, available: [])
        default:
            return .system(transport: adapter, error)
        }
    }

    /// The raw-channel filter: event packets only; Command Complete (0x0E), Command Status (0x0F),
    /// Hardware Error (0x10) and LE Meta (0x3E). Event codes: Core Spec 5.4, Vol 4, Part E, §7.7.
    static func eventFilter() -> hci_filter {
        var filter = hci_filter()
        filter.type_mask = 1 << (UInt32(HCI_EVENT_PKT) & UInt32(HCI_FLT_TYPE_BITS))
        var events: (UInt32, UInt32) = (0, 0)
        for code in [UInt32(0x0E), 0x0F, 0x10, 0x3E] {
            let bit = code & UInt32(HCI_FLT_EVENT_BITS)
            if bit < 32 { events.0 |= 1 << bit } else { events.1 |= 1 << (bit - 32) }
        }
        filter.event_mask = events
        return filter
    }

    private static func address(index: UInt16, channel: UInt16) -> sockaddr_hci {
        sockaddr_hci(hci_family: sa_family_t(AF_BLUETOOTH), hci_dev: index, hci_channel: channel)
    }
}
