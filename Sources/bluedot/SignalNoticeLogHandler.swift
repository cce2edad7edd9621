import Logging

/// The logger a command hands its service group: of the group's own records it passes on only the one that names
/// the signal that stopped the command, as a notice (`signal=SIGTERM stopping`), through standard error like every
/// other log line; the group's other records are its debugging and are dropped.
struct SignalNoticeLogHandler: LogHandler {
    /// The metadata key the group's configuration names its caught signal with.
    static let signalKey = "signal"

    private var base: StreamLogHandler
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    init(label: String) {
        base = StreamLogHandler.standardError(label: label)
        base.logLevel = .trace
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard let signal = event.metadata?[Self.signalKey] else { return }
        var notice = event
        notice.level = .notice
        notice.message = "stopping"
        notice.metadata = [Self.signalKey: signal]
        base.log(event: notice)
    }
}
