import Logging
import ServiceLifecycle

/// Runs the observation source into the pipeline as a lifecycle service.
///
/// Every second it releases the engine's grid up to the source's clock (`ObservationSource.observationTime`, half
/// a second behind), so quiet targets keep getting last-known fixes, sweeps the hub (stale and removed targets)
/// and copies the source's counters into the metrics. A source that fails is restarted after `restartDelay` (a
/// scanner fault is not fatal); a replay that ends leaves the last fixes on the map. On graceful shutdown
/// (SIGTERM, SIGINT) it stops the source, waits for it, runs `onStop` (flushes the recording) and closes the
/// feed, so web clients disconnect cleanly.
public struct PipelineService: Service {
    /// The source.
    public let source: any ObservationSource
    /// The pipeline observations go to.
    public let pipeline: Pipeline
    /// Pause before restarting a failed source.
    public var restartDelay: Duration = .seconds(2)
    private let wallClock: @Sendable () -> Double
    private let onStop: @Sendable () -> Void
    private let logger: Logger

    /// Creates the service; `onStop` runs once after the source has stopped.
    public init(
        source: any ObservationSource, pipeline: Pipeline, wallClock: @escaping @Sendable () -> Double,
        logger: Logger, onStop: @escaping @Sendable () -> Void = {}
    ) {
        self.source = source
        self.pipeline = pipeline
        self.wallClock = wallClock
        self.logger = logger
        self.onStop = onStop
    }

    /// Runs until graceful shutdown or cancellation.
    public func run() async throws {
        let source = source
        let pipeline = pipeline
        let ended = SharedValue(false)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await runSource(stopped: ended) }
                group.addTask { await sweepLoop(stopped: ended) }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            ended.withLock { $0 = true }
            source.stop()
        }
        copyStatistics(into: pipeline)
        onStop()
        pipeline.hub.close()
        logger.info("pipeline stopped", metadata: ["fixes": "\(pipeline.counters.fixes)"])
    }

    private func runSource(stopped: SharedValue<Bool>) async {
        let pipeline = pipeline
        while !stopped.value && !Task.isCancelled {
            logger.info("source starting", metadata: ["source": "\(source.name)"])
            do {
                try await source.run { o, arrivedAt in pipeline.ingest(o, arrivedAt: arrivedAt) }
                logger.info("source ended", metadata: ["source": "\(source.name)"])
                break
            } catch {
                if stopped.value { break }
                logger.error("source failed; restarting", metadata: ["source": "\(source.name)", "error": "\(error)"])
                try? await Task.sleep(for: restartDelay)
            }
        }
        // A replay that ended stays on the map until shutdown; sweeping goes on.
        while !stopped.value && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// How far behind the wall clock the engine's grid is released without observations, seconds (a report
    /// stamped just before a sweep must not come too late for its grid point).
    public static let releaseDelaySeconds = 0.5

    private func sweepLoop(stopped: SharedValue<Bool>) async {
        while !stopped.value && !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if let t = source.observationTime(atWallTime: wallClock() - Self.releaseDelaySeconds) {
                pipeline.advance(to: t)
            }
            pipeline.hub.sweep()
            copyStatistics(into: pipeline)
        }
    }

    private let copied = SharedValue(SourceStatistics())

    private func copyStatistics(into pipeline: Pipeline) {
        let s = source.statistics
        let metrics = pipeline.metrics
        copied.withLock { last in
            if s.reports > last.reports { metrics.reports.increment(by: Int64(s.reports - last.reports)) }
            if s.malformed > last.malformed {
                metrics.malformedReports.increment(by: Int64(s.malformed - last.malformed))
            }
            if s.reconnects > last.reconnects {
                metrics.scannerReconnects.increment(by: Int64(s.reconnects - last.reconnects))
            }
            last = s
        }
        metrics.targetsTracked.set(Double(pipeline.hub.targetCount))
        metrics.feedSubscribers.set(Double(pipeline.hub.subscriberCount))
    }
}
