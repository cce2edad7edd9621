import BlueDotCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bluedot-bench floor`: what the daemon's shape costs on this machine before it does any work. The paced replay
/// wakes a thread once per pacing quantum (`PacedReplaySource`, 2 ms) and hands what it made to the web server's
/// event loop, which wakes and writes the feed's frames to the browser's TCP connection. Here a thread waits on the
/// same clock call (`SystemClock.wait(until:or:)`) once per quantum, and then, in three runs per quantum:
/// - does nothing else (the wakes alone);
/// - writes the frames of the fixes due in that quantum (`--fixes` per second, `--frame` bytes each) to a loopback
///   TCP connection itself (the cheapest shape a daemon could have);
/// - hands a wake to a second thread through a pipe (as an event loop is woken), which writes them (the daemon's
///   shape).
/// A third thread reads the connection, as the browser. The CPU of the pacing and writing threads, the daemon's
/// side (the loopback's delivery runs in the writer's system call), is the floor under `bluedot-bench gateway`'s
/// figure at that quantum: it is spent with no observation read and no fix made.
enum FloorBenchmark {
    struct Options {
        var seconds = 10.0
        var quanta: [Double] = [0.002, 0.005, 0.010]
        var fixesPerSecond = 500.0
        var frameBytes = 489
        var reportsPerSecond = 3000.0
    }

    static func run(_ arguments: [String]) throws {
        var o = Options()
        var i = 0
        while i < arguments.count {
            guard i + 1 < arguments.count else { throw BenchmarkError.usage("\(arguments[i]) needs a value") }
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--seconds": o.seconds = try number(value, arguments[i])
            case "--quanta":
                o.quanta = try value.split(separator: ",").map { try number(String($0), "--quanta") / 1000 }
            case "--fixes": o.fixesPerSecond = try number(value, arguments[i])
            case "--frame": o.frameBytes = Int(try number(value, arguments[i]))
            case "--reports": o.reportsPerSecond = try number(value, arguments[i])
            default:
                throw BenchmarkError.usage(
                    "usage: bluedot-bench floor [--seconds S] [--quanta MS,MS,...] [--fixes PER_S] [--frame BYTES] "
                        + "[--reports PER_S]")
            }
            i += 2
        }
        print(String(format: "floor: %.0f s per quantum, %.0f fixes/s of %d bytes, figures per 1,000 reports/s at %.0f reports/s",
                     o.seconds, o.fixesPerSecond, o.frameBytes, o.reportsPerSecond))
        for quantum in o.quanta {
            let perThousand = o.reportsPerSecond / 1000
            print(String(format: "quantum %.1f ms:", quantum * 1000))
            for (shape, what) in [(Shape.wakes, "waking alone"), (.direct, "waking and writing"),
                                  (.handOff, "waking, handing over, writing (the daemon's shape)")] {
                let r = try measure(quantum: quantum, shape: shape, o)
                print(String(format: "  %@: %.4f cores, %.1f µs a wake (%.0f wakes/s): %.4f cores per 1,000 reports/s",
                             what, r.cores, 1e6 * r.cores / r.wakesPerSecond, r.wakesPerSecond, r.cores / perThousand))
            }
        }
    }

    static func number(_ text: String, _ option: String) throws -> Double {
        guard let value = Double(text), value > 0 else { throw BenchmarkError.usage("\(option): not a positive number: \(text)") }
        return value
    }

    struct Result {
        var cores: Double
        var wakesPerSecond: Double
    }

    /// What runs besides the pacing thread's wakes.
    enum Shape {
        /// Nothing: the wakes alone.
        case wakes
        /// The pacing thread writes the frames to the connection itself.
        case direct
        /// The pacing thread wakes a writer thread, which writes them (the daemon's shape).
        case handOff

        /// The threads it runs: the pacer, then the reader of the connection and the writer when it has them.
        var threads: Int {
            switch self {
            case .wakes: 1
            case .direct: 2
            case .handOff: 3
            }
        }
    }

    /// The frames of the fixes due in each wake, written to a connection.
    struct Frames {
        let frame: [UInt8]
        let fixesPerWake: Double
        var owed = 0.0
        var buffer: [UInt8] = []

        init(_ o: Options, quantum: Double) {
            frame = [UInt8](repeating: UInt8(ascii: "x"), count: o.frameBytes)
            fixesPerWake = o.fixesPerSecond * quantum
        }

        /// Writes what `wakes` wakes made due to `socket`, in one write.
        mutating func write(wakes: Int, to socket: Int32) {
            owed += fixesPerWake * Double(wakes)
            let frames = Int(owed)
            guard frames > 0 else { return }
            owed -= Double(frames)
            buffer.removeAll(keepingCapacity: true)
            for _ in 0..<frames { buffer.append(contentsOf: frame) }
            _ = buffer.withUnsafeBytes { Glibc.write(socket, $0.baseAddress, $0.count) }
        }
    }

    /// Runs the pacing thread (and the writer and the reader its shape has) for `o.seconds`; the CPU of the daemon's
    /// side per wall second.
    static func measure(quantum: Double, shape: Shape, _ o: Options) throws -> Result {
        let clock = SystemClock()
        let alarm = ThreadAlarm()
        let done = ThreadCondition()
        let results = LockedValue((pacer: 0.0, writer: 0.0, wakes: 0, finished: 0))
        let link = shape == .wakes ? nil : try connectedPair()
        let finish: @Sendable ((inout (pacer: Double, writer: Double, wakes: Int, finished: Int)) -> Void) -> Void = {
            update in
            results.withLock { r in
                update(&r)
                r.finished += 1
            }
            done.lock()
            done.broadcast()
            done.unlock()
        }
        let start = clock.now()
        let end = start + o.seconds
        SystemThread.detach(name: "floor-pacer") {
            var next = start + quantum
            var wakes = 0
            var one: UInt8 = 1
            var frames = Frames(o, quantum: quantum)
            while next < end, clock.wait(until: next, or: alarm) {
                wakes += 1
                next += quantum
                guard let link else { continue }
                if shape == .direct {
                    frames.write(wakes: 1, to: link.writer)
                } else {
                    _ = Glibc.write(link.wake, &one, 1)
                }
            }
            if let link {
                if shape == .direct {
                    shutdown(link.writer, Int32(SHUT_WR))
                } else {
                    // Tells the writer to stop.
                    var stop: UInt8 = 0
                    _ = Glibc.write(link.wake, &stop, 1)
                }
            }
            let cpu = ResourceUsage.threadCPUSeconds()
            finish { r in
                r.pacer = cpu
                r.wakes = wakes
            }
        }
        if let link, shape == .handOff {
            SystemThread.detach(name: "floor-writer") {
                var frames = Frames(o, quantum: quantum)
                var signals = [UInt8](repeating: 0, count: 64)
                while true {
                    let n = signals.withUnsafeMutableBytes { Glibc.read(link.woken, $0.baseAddress, $0.count) }
                    guard n > 0, !signals[0..<n].contains(0) else { break }
                    frames.write(wakes: n, to: link.writer)
                }
                shutdown(link.writer, Int32(SHUT_WR))
                let cpu = ResourceUsage.threadCPUSeconds()
                finish { $0.writer = cpu }
            }
        }
        if let link {
            SystemThread.detach(name: "floor-reader") {
                var sink = [UInt8](repeating: 0, count: 1 << 16)
                while sink.withUnsafeMutableBytes({ Glibc.read(link.reader, $0.baseAddress, $0.count) }) > 0 {}
                finish { _ in }
            }
        }
        done.lock()
        while results.withLock({ $0.finished }) < shape.threads { done.wait() }
        done.unlock()
        if let link {
            for fd in [link.wake, link.woken, link.writer, link.reader] { close(fd) }
        }
        let r = results.withLock { $0 }
        let wall = clock.now() - start
        return Result(cores: (r.pacer + r.writer) / wall, wakesPerSecond: Double(r.wakes) / wall)
    }

    /// A pipe (the pacer's wake-ups to the writer, as an event loop is woken) and the two ends of a loopback TCP
    /// connection (the writer's without Nagle's delay, as a web server's).
    static func connectedPair() throws -> (wake: Int32, woken: Int32, writer: Int32, reader: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError("floor: no pipe: errno \(errno)") }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let reader = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0, reader >= 0 else { throw BenchError("floor: no sockets: errno \(errno)") }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bind(listener, a, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, a, &length) == 0
                    && connect(reader, a, length) == 0
            }
        }
        guard bound else { throw BenchError("floor: no loopback connection: errno \(errno)") }
        let writer = accept(listener, nil, nil)
        guard writer >= 0 else { throw BenchError("floor: accept failed: errno \(errno)") }
        var on: Int32 = 1
        setsockopt(writer, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return (ends[1], ends[0], writer, reader)
    }
}
