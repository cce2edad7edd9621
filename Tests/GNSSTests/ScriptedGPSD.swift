import BlueDotCore
import GNSS

/// A gpsd peer scripted by the test: each `open()` takes the next session, which either refuses the connection or
/// hands out the given lines and then closes (gpsd going away). Records what the client wrote.
final class ScriptedGPSD: GPSDConnection, @unchecked Sendable {
    enum Session {
        case refuse
        case lines([String])
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    let name = "scripted-gpsd"
    private let state: LockedValue<(sessions: [Session], written: [String], opens: Int)>

    init(_ sessions: [Session]) {
        state = LockedValue((sessions, [], 0))
    }

    var written: [String] { state.withLock { $0.written } }
    var opens: Int { state.withLock { $0.opens } }

    func open() async throws -> AsyncThrowingStream<[UInt8], any Error> {
        let session = state.withLock { s -> Session? in
            s.opens += 1
            return s.sessions.isEmpty ? nil : s.sessions.removeFirst()
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        switch session {
        case .refuse?, nil:
            throw Refused()
        case .lines(let lines)?:
            // Split at odd places: the reader must join chunks into lines.
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            var i = 0, k = 1
            while i < bytes.count {
                let n = min(k % 7 + 1, bytes.count - i)
                continuation.yield(Array(bytes[i..<(i + n)]))
                i += n
                k += 3
            }
            continuation.finish()
        }
        return stream
    }

    func write(_ bytes: [UInt8]) async throws {
        state.withLock { $0.written.append(String(decoding: bytes, as: UTF8.self)) }
    }

    func close() async {}
}
