#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A standard serial line speed, as termios knows it. Only rates in `BaudRate.standard` exist, so a typo such
/// as 11520 is an error listing the valid ones rather than a silently wrong line.
public struct BaudRate: Sendable, Hashable, CustomStringConvertible {
    /// Bits per second.
    public let bitsPerSecond: Int
    /// The termios speed constant (`B115200` and so on).
    let speed: speed_t

    /// The supported rates, from 9600 to 4000000 bit/s, with their termios constants.
    static let table: [(Int, speed_t)] = [
        (9600, speed_t(B9600)), (19200, speed_t(B19200)), (38400, speed_t(B38400)), (57600, speed_t(B57600)),
        (115200, speed_t(B115200)), (230400, speed_t(B230400)), (460800, speed_t(B460800)),
        (500000, speed_t(B500000)), (576000, speed_t(B576000)), (921600, speed_t(B921600)),
        (1000000, speed_t(B1000000)), (1152000, speed_t(B1152000)), (1500000, speed_t(B1500000)),
        (2000000, speed_t(B2000000)), (2500000, speed_t(B2500000)), (3000000, speed_t(B3000000)),
        (3500000, speed_t(B3500000)), (4000000, speed_t(B4000000)),
    ]

    /// Every supported rate in bits per second, ascending.
    public static var standard: [Int] { table.map(\.0) }

    /// The usual rate of HCI UART controllers (and of Zephyr's `hci_uart` sample).
    public static let default115200 = BaudRate(bitsPerSecond: 115200, speed: speed_t(B115200))

    private init(bitsPerSecond: Int, speed: speed_t) {
        self.bitsPerSecond = bitsPerSecond
        self.speed = speed
    }

    /// The rate `bitsPerSecond`, or `SystemIOError.invalidBaudRate` listing the valid ones.
    public init(_ bitsPerSecond: Int) throws(SystemIOError) {
        guard let entry = Self.table.first(where: { $0.0 == bitsPerSecond }) else {
            throw .invalidBaudRate(bitsPerSecond, valid: Self.standard)
        }
        self.init(bitsPerSecond: entry.0, speed: entry.1)
    }

    /// The rate in bits per second, as a number.
    public var description: String { "\(bitsPerSecond)" }
}
