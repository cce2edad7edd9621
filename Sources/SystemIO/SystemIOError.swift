import HCI

/// Why a Linux HCI transport could not open, send or keep reading. Each message names the transport and says
/// what to do about it; the underlying `SystemError` (call and errno) is kept where there is one.
public enum SystemIOError: HCITransportError, Sendable, Hashable, CustomStringConvertible {
    /// The kernel has no Bluetooth socket family (`socket(AF_BLUETOOTH)` failed with `EAFNOSUPPORT`).
    case noBluetoothSupport(SystemError)
    /// The process lacks a capability the operation needs (`CAP_NET_RAW` to open, `CAP_NET_ADMIN` to bring up).
    case missingCapability(String, SystemError)
    /// No adapter matches; `available` lists the ones the kernel knows.
    case noSuchAdapter(String, available: [String])
    /// The adapter named by its index is gone, and the controller it had (by its address) is back under another
    /// name: a replugged dongle that came back as hci1 while something held hci0.
    case adapterMoved(adapter: String, now: String, address: String)
    /// The adapter is soft- or hard-blocked by rfkill.
    case rfkillBlocked(adapter: String)
    /// The exclusive user channel could not be taken because something else holds the adapter.
    case adapterBusy(adapter: String)
    /// An adapter selector that is neither `hciN` nor a `AA:BB:CC:DD:EE:FF` address.
    case invalidAdapter(String)
    /// A TCP endpoint that is not `host:port`.
    case invalidEndpoint(String, reason: String)
    /// A baud rate not in the table of standard rates.
    case invalidBaudRate(Int, valid: [Int])
    /// The host name could not be resolved.
    case cannotResolve(host: String, reason: String)
    /// The connection did not complete within the timeout.
    case connectTimedOut(transport: String, timeout: Duration)
    /// The H4 byte stream lost sync; nothing after this point can be trusted.
    case framingLost(transport: String, H4Framer.Error)
    /// A write did not complete in time (a serial line held by flow control, a stalled socket).
    case writeTimedOut(transport: String)
    /// `send` was called while the link is not open.
    case notOpen(transport: String)
    /// Any other failed system call, on the named transport.
    case system(transport: String, SystemError)

    /// What went wrong, on which transport, and what to do about it.
    public var description: String {
        switch self {
        case let .noBluetoothSupport(error):
            return "no Bluetooth support in this kernel (\(error.call) failed: \(error.symbolicName))"
        case let .missingCapability(capability, error):
            return "permission denied: missing \(capability) (\(error.call) failed: \(error.symbolicName));"
                + " run as root or grant it, e.g. setcap cap_net_raw,cap_net_admin+eip <binary>"
        case let .noSuchAdapter(adapter, available):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            return "no adapter \(adapter) (available: \(list))"
        case let .adapterMoved(adapter, now, address):
            return "no adapter \(adapter): its controller (\(address)) is back as \(now); waiting for \(adapter) to come"
                + " back (give --hci \(address) to follow the controller by its address)"
        case let .rfkillBlocked(adapter):
            return "adapter \(adapter) blocked by rfkill (try: rfkill unblock bluetooth)"
        case let .adapterBusy(adapter):
            return "adapter \(adapter) in use (stop bluetoothd or bring it down)"
        case let .invalidAdapter(text):
            return "invalid adapter \"\(text)\": expected a name like hci0 or an address like AA:BB:CC:DD:EE:FF"
        case let .invalidEndpoint(text, reason):
            return "invalid TCP endpoint \"\(text)\": \(reason) (expected host:port, or [v6-address]:port)"
        case let .invalidBaudRate(rate, valid):
            return "unsupported baud rate \(rate) (valid: \(valid.map(String.init).joined(separator: ", ")))"
        case let .cannotResolve(host, reason):
            return "cannot resolve \(host): \(reason)"
        case let .connectTimedOut(transport, timeout):
            return "\(transport): connect timed out after \(timeout)"
        case let .framingLost(transport, error):
            return "\(transport): \(error)"
        case let .writeTimedOut(transport):
            return "\(transport): write timed out (peer not reading, or flow control holding the line)"
        case let .notOpen(transport):
            return "\(transport): not open"
        case let .system(transport, error):
            return "\(transport): \(error)"
        }
    }

    /// Permanent: the missing capability, no Bluetooth in the kernel and the invalid selectors, endpoints and baud
    /// rates. An absent, blocked or busy adapter may come back (a USB replug, `rfkill unblock`, bluetoothd stopped)
    /// and so may every failure of the link itself.
    public var isPermanent: Bool {
        switch self {
        case .missingCapability, .noBluetoothSupport, .invalidAdapter, .invalidEndpoint, .invalidBaudRate: true
        case .noSuchAdapter, .adapterMoved, .rfkillBlocked, .adapterBusy, .cannotResolve, .connectTimedOut, .framingLost,
             .writeTimedOut, .notOpen, .system: false
        }
    }
}
