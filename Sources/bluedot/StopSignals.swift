import Dispatch
import FoundationEssentials
import Glibc

/// Calls a handler on SIGINT or SIGTERM instead of letting the signal kill the process.
final class StopSignals {
    private var sources: [any DispatchSourceSignal] = []

    /// Starts watching; `handler` runs on a background queue with the signal's name.
    init(_ handler: @escaping @Sendable (String) -> Void) {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(name) }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops watching and restores the default actions.
    func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
