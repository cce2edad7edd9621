#if canImport(Glibc)
import Glibc
#endif
import CBlueZ
import HCI
import Testing
@testable import SystemIO

extension LinuxTransportTests {
    @Suite struct BlueZSocket {
        /// Whether this kernel has the Bluetooth socket family at all.
        static var kernelHasBluetooth: Bool {
            guard let fd = try? System.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI, label: "probe") else {
                return errno != EAFNOSUPPORT
            }
            System.close(fd)
            return true
        }

        @Test(.enabled(if: !kernelHasBluetooth, "this kernel has AF_BLUETOOTH"))
        func openFailsWithoutBluetoothSupportWithAClearMessage() async throws {
            let transport = try BlueZSocketTransport(adapter: "hci0")
                        do {
                _ = try await transport.open()
                Issue.record("open() succeeded on a kernel without AF_BLUETOOTH")
            } catch let error as SystemIOError {
                guard case let .noBluetoothSupport(systemError) = error else {
                    Issue.record("unexpected error: \(error)")
                    return
                }
                #expect(systemError.code == EAFNOSUPPORT)
                #expect(error.description == "no Bluetooth support in this kernel (socket(AF_BLUETOOTH) failed: EAFNOSUPPORT)")
            }
            await #expect(throws: SystemIOError.notOpen(transport: "hci0")) { try await transport.send(Bytes.reset) }
            await transport.close()
            #expect(try Peer.sockets(ofFamily: AF_BLUETOOTH).isEmpty)
        }

        @Test(.enabled(if: !kernelHasBluetooth, "this kernel has AF_BLUETOOTH"))
        func userChannelFailsTheSameWay() async throws {
            let transport = BlueZSocketTransport(adapter: .address([0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]), channel: .user)
            #expect(transport.name == "AA:BB:CC:DD:EE:FF")
            await #expect {
                _ = try await transport.open()
            } throws: { error in
                guard case .noBluetoothSupport = error as? SystemIOError else { return false }
                return true
            }
        }

        @Test func messagesSayWhatToDo() {
            let eperm = SystemError(code: EPERM, call: "socket(AF_BLUETOOTH)")
            #expect(SystemIOError.missingCapability("CAP_NET_RAW", eperm).description.hasPrefix(
                "permission denied: missing CAP_NET_RAW (socket(AF_BLUETOOTH) failed: EPERM)"))
            #expect(SystemIOError.noSuchAdapter("hci3", available: ["hci0 (00:1A:7D:DA:71:13)"]).description
                == "no adapter hci3 (available: hci0 (00:1A:7D:DA:71:13))")
            #expect(SystemIOError.noSuchAdapter("hci3", available: []).description == "no adapter hci3 (available: none)")
            let moved = SystemIOError.adapterMoved(adapter: "hci0", now: "hci1", address: "F0:F1:F2:F3:F4:F5")
            #expect(moved.description == "no adapter hci0: its controller (F0:F1:F2:F3:F4:F5) is back as hci1; waiting"
                + " for hci0 to come back (give --hci F0:F1:F2:F3:F4:F5 to follow the controller by its address)")
            #expect(!moved.isPermanent, "hci0 may come back too")
            #expect(SystemIOError.rfkillBlocked(adapter: "hci0").description.hasPrefix("adapter hci0 blocked by rfkill"))
            #expect(SystemIOError.adapterBusy(adapter: "hci0").description
                == "adapter hci0 in use (stop bluetoothd or bring it down)")
        }

        /// The raw-channel filter passes event packets only, and of those exactly the four codes the scanner needs.
        @Test func eventFilterPassesEventsTheScannerNeeds() {
            let filter = BlueZSocketTransport.eventFilter()
            #expect(filter.type_mask == 1 << 4)  // HCI_EVENT_PKT
            let mask = UInt64(filter.event_mask.1) << 32 | UInt64(filter.event_mask.0)
            let codes = (0..<64).filter { mask & (1 << UInt64($0)) != 0 }
            #expect(codes == [0x0E, 0x0F, 0x10, 0x3E])
            #expect(filter.opcode == 0)
        }

        @Test func findsAdaptersByIndexOrAddress() throws {
            let adapters = [
                BlueZAdapter(index: 0, name: "hci0", address: [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13], isUp: true),
                BlueZAdapter(index: 2, name: "hci2", address: [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], isUp: false),
            ]
            #expect(BlueZAdapter.find(try AdapterSelector(parsing: "hci2"), in: adapters)?.name == "hci2")
            #expect(BlueZAdapter.find(try AdapterSelector(parsing: "00:1a:7d:da:71:13"), in: adapters)?.index == 0)
            #expect(BlueZAdapter.find(try AdapterSelector(parsing: "hci1"), in: adapters) == nil)
        }
    }
}
