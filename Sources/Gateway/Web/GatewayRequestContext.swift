import Hummingbird
import NIOCore

/// The gateway's request context: Hummingbird's core context and the event loop of the request's connection, so a
/// long-lived response (the push feed) can run its task on that loop (`EventLoopTaskExecutor`) and write without a
/// hop between threads.
public struct GatewayRequestContext: RequestContext {
    /// Hummingbird's storage (logger, parameters, allocator).
    public var coreContext: CoreRequestContextStorage
    /// The connection's event loop.
    public let eventLoop: any EventLoop

    /// The context of a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        eventLoop = source.channel.eventLoop
    }
}
