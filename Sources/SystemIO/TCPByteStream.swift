/// A plain TCP byte stream for the text protocols BlueDot speaks besides H4: gpsd's JSON lines on port 2947.
///
/// The same link as `H4StreamTransport`'s TCP side (connect with a timeout through `StreamOpeners`, a
/// `DescriptorLink` read on a thread of its own, writes with a deadline), without the H4 framing: chunks are
/// yielded as they arrive. The peer closing finishes the stream; a read error throws an `SystemIOError` naming
/// this stream. `open()` after the stream ended reconnects; opening while a link is up closes that link first.
public final class TCPByteStream: Sendable {
    /// Where this stream connects.
    public let endpoint: TCPEndpoint
    /// How long a connect may take before `open()` fails.
    public let connectTimeout: Duration
    /// How long one `write` may wait for room in the socket buffer.
    public let writeTimeout: Duration
    /// `tcp:host:port`, used in logs and errors.
    public var name: String { "tcp:\(endpoint)" }

    private let current = OpenLink()

    /// Creates a stream for `endpoint`; nothing is opened until `open()`.
    public init(endpoint: TCPEndpoint, connectTimeout: Duration = .seconds(5), writeTimeout: Duration = .seconds(2)) {
        self.endpoint = endpoint
        self.connectTimeout = connectTimeout
        self.writeTimeout = writeTimeout
    }

    /// Connects and returns the chunks read. Any link already open is closed first. Throws `SystemIOError`.
    public func open() async throws -> AsyncThrowingStream<[UInt8], any Error> {
        await close()
        let endpoint = endpoint, name = name, timeout = connectTimeout
        let descriptor = try await Blocking.run("connect") { () throws(SystemIOError) -> Int32 in
            try StreamOpeners.connectTCP(endpoint, timeout: timeout, name: name)
        }
        var policy = DescriptorLink.Policy()
        policy.isSocket = true
        let link = try DescriptorLink(descriptor: descriptor, name: name, policy: policy)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        continuation.onTermination = { _ in link.stop() }
        current.install(link)
        link.startReading(
            onBytes: { chunk in continuation.yield(Array(chunk)) },
            onEnd: { error in continuation.finish(throwing: error) })
        return stream
    }

    /// Writes `bytes`. Throws `SystemIOError` (`.notOpen` after the link ended).
    public func write(_ bytes: [UInt8]) async throws {
        try current.write(bytes, transport: name, timeout: writeTimeout)
    }

    /// Stops the reader, closes the descriptor and returns once both are done.
    public func close() async { await current.close() }
}
