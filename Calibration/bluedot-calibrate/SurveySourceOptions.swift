import ArgumentParser
import HCI
import HCILinux

/// Where survey readings come from: a BlueZ adapter, an H4 stream over TCP or a serial line (the same choices as
/// `bluedot scan`), or a btsnoop recording replayed window by window. Exactly one is given.
struct SurveySourceOptions: ParsableArguments {
    @Option(name: .customLong("hci"), help: "BlueZ adapter: hci0, an index, or its address (needs AF_BLUETOOTH).")
    var adapter: String?

    @Option(name: .customLong("h4-tcp"), help: "H4 over TCP, HOST:PORT (a virtual or networked controller).")
    var tcp: String?

    @Option(name: .customLong("h4-tty"), help: "H4 over a serial line at PATH.")
    var tty: String?

    @Option(help: "Serial line speed for --h4-tty.")
    var baud: Int = 115_200

    @Flag(name: .customLong("user-channel"), help: "With --hci: exclusive HCI user channel (the adapter must be down).")
    var userChannel = false

    @Option(help: "Replay this btsnoop recording instead of scanning: each point takes the next --seconds of it.")
    var replay: String?

    func validate() throws {
        let given = [adapter, tcp, tty, replay].compactMap { $0 }
        guard given.count == 1 else {
            throw ValidationError("give exactly one of --hci, --h4-tcp, --h4-tty, --replay")
        }
        if userChannel && adapter == nil { throw ValidationError("--user-channel needs --hci") }
    }

    /// The live transport, nil with --replay; open errors name the option's value.
    func makeTransport() throws -> (any HCITransport)? {
        do {
            if let adapter {
                return try BlueZSocketTransport(adapter: adapter, channel: userChannel ? .user : .raw)
            }
            if let tcp { return try H4StreamTransport(tcp: tcp) }
            if let tty { return try H4StreamTransport(serialPath: tty, baudRate: baud) }
        } catch {
            throw ValidationError("\(error)")
        }
        return nil
    }
}
