import ArgumentParser
import HCI
import SystemIO

/// Where the controller is, as every BlueDot command that scans takes it: a BlueZ adapter (`--hci`), an H4 stream
/// over TCP (`--h4-tcp`), or an H4 serial line (`--h4-tty`, `--baud`). At most one is given; commands that need one
/// check `sourcesGiven`, and commands with another source (a recording) accept none.
public struct ControllerOptions: ParsableArguments {
    /// The BlueZ adapter: `hci0`, an index, or its address.
    @Option(name: .customLong("hci"), help: "BlueZ adapter: hci0, an index, or its address (needs AF_BLUETOOTH).")
    public var adapter: String?

    /// `HOST:PORT` of an H4 stream over TCP.
    @Option(name: .customLong("h4-tcp"), help: "H4 over TCP, HOST:PORT (a virtual or networked controller).")
    public var tcp: String?

    /// Path of a serial line carrying H4.
    @Option(name: .customLong("h4-tty"), help: "H4 over a serial line at PATH.")
    public var tty: String?

    /// Serial line speed for `--h4-tty`.
    @Option(help: "Serial line speed for --h4-tty.")
    public var baud: Int = 115_200

    /// Use BlueZ's exclusive user channel with `--hci`.
    @Flag(name: .customLong("user-channel"), help: "With --hci: exclusive HCI user channel (the adapter must be down).")
    public var userChannel = false

    /// Creates the options with nothing chosen (ArgumentParser fills them in).
    public init() {}

    /// How many of `--hci`, `--h4-tcp` and `--h4-tty` were given.
    public var sourcesGiven: Int { [adapter, tcp, tty].compactMap { $0 }.count }

    public func validate() throws {
        guard sourcesGiven <= 1 else { throw ValidationError("give only one of --hci, --h4-tcp, --h4-tty") }
        if userChannel && adapter == nil { throw ValidationError("--user-channel needs --hci") }
    }

    /// Builds the transport, nil when no controller was named; bad values are errors naming the option's value.
    public func makeTransport() throws -> (any HCITransport)? {
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
