import BeaconLocation
import BlueDotCore
import Formats
import Foundation
import Logging
import Positioning
import Prometheus

/// Keeps what self-calibration learned across restarts, and shows it: at start it hands the engine what an earlier
/// run learned (a damaged or foreign file is ignored, with one log line), with each housekeeping pass it writes it
/// back when it changed and sets the metrics, and `/api/calibration` reads `document`.
public final class LearnedCalibrationKeeper: Sendable {
    private let pipeline: PositioningPipeline
    /// The file, nil when nothing is kept (memory).
    public let path: String?
    /// The venue name the file must carry to be taken up at start.
    private let venueName: String
    private let logger: Logger
    private let metrics: GatewayMetrics
    /// The models last written (or taken up): the file is written again only when they change, not with every
    /// record, so that a gateway on an SD card does not wear it out.
    private let saved = LockedValue<[Double]?>(nil)
    private let reported = LockedValue(SelfCalibration.Counters())
    /// The engine's learning revision last shown in the metrics and written (`PositioningPipeline.learnedRevision`).
    private let shown = LockedValue(-1)

    /// Takes up the file at `path` (when there is one), into `pipeline`'s engine.
    public init(pipeline: PositioningPipeline, path: String?, venueName: String, metrics: GatewayMetrics, logger: Logger) {
        self.pipeline = pipeline
        self.path = path
        self.venueName = venueName
        self.metrics = metrics
        self.logger = logger
        guard let path, FileManager.default.fileExists(atPath: path) else { return }
        do {
            let (learned, venue) = try LearnedCalibrationFile.load(path: path)
            guard venue == venueName else {
                logger.warning("learned calibration ignored: it was learned in another venue",
                               metadata: ["file": "\(path)", "venue": "\(venue)"])
                return
            }
            try pipeline.restoreLearnedCalibration(learned)
            saved.withLock { $0 = Self.models(learned) }
            reported.withLock { $0 = learned.counters }
            logger.info("learned calibration taken up", metadata: [
                "file": "\(path)", "updates": "\(learned.counters.accepted)", "records": "\(learned.counters.records)",
            ])
        } catch {
            logger.warning("learned calibration ignored: starting from the venue's models",
                           metadata: ["file": "\(path)", "reason": "\(error)"])
        }
    }

    /// What was learned, as the learned-calibration document; nil when self-calibration is off.
    public var document: String? {
        pipeline.learnedCalibration.map { LearnedCalibrationFile.json($0, venue: pipeline.venue.name) }
    }

    /// A venue saved while running: the next `record()` shows and writes what the new engine holds.
    public func venueChanged() {
        shown.withLock { $0 = -1 }
    }

    /// Sets the metrics, and writes the file when learning changed the models since it was last written. Between
    /// refits (once a minute at most) there is nothing new, and nothing is read from the engine.
    public func record() {
        guard let revision = pipeline.learnedRevision, revision != shown.value,
              let learned = pipeline.learnedCalibration else { return }
        shown.withLock { $0 = revision }
        setMetrics(learned)
        let models = Self.models(learned)
        guard let path, saved.value != models else { return }
        do {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try (LearnedCalibrationFile.json(learned, venue: pipeline.venue.name) + "\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
            saved.withLock { $0 = models }
        } catch {
            // Once per change of the models: the next pass tries again only when there is more to keep.
            saved.withLock { $0 = models }
            logger.warning("cannot keep the learned calibration", metadata: ["file": "\(path)", "reason": "\(error)"])
        }
    }

    /// The numbers that change when learning changes the models: the site's and every anchor's.
    private static func models(_ learned: LearnedCalibration) -> [Double] {
        [learned.site.levelDBm, learned.site.exponent]
            + learned.anchors.flatMap { [$0.measuredPowerDBm, $0.pathLossExponent, $0.uncertainty.levelSigmaDB] }
    }

    private func setMetrics(_ learned: LearnedCalibration) {
        let r = metrics.registry
        func name(_ n: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "bluedot", metricName: n, unitName: unit, helpText: help)
        }
        for e in learned.anchors {
            let labels = [("anchor", e.id)]
            r.makeGauge(descriptor: name("calibration_measured_power", "dbm",
                                         "The anchor's model in use: RSSI at 1 m."), labels: labels)
                .set(e.measuredPowerDBm)
            r.makeGauge(descriptor: name("calibration_exponent", "", "The anchor's model in use: path-loss exponent."),
                        labels: labels)
                .set(e.pathLossExponent)
            r.makeGauge(descriptor: name("calibration_samples", "",
                                         "Measurements of the anchor behind the last accepted fit."), labels: labels)
                .set(Double(e.samples))
            r.makeGauge(descriptor: name("calibration_confidence", "",
                                         "How much was learned of the anchor's level: 1 - sigma learned / sigma prior."),
                        labels: labels)
                .set(e.confidence)
        }
        r.makeGauge(descriptor: name("calibration_frozen", "", "1 while self-calibration is frozen after an undone update."))
            .set(Double(learned.phase == .frozen ? 1 : 0))
        let before = reported.value
        let now = learned.counters
        for (result, a, b) in [("accepted", now.accepted, before.accepted), ("rejected", now.rejectedHeldOut, before.rejectedHeldOut),
                               ("undone", now.undone, before.undone)] where a > b {
            r.makeCounter(descriptor: name("calibration_updates", "total",
                                           "Self-calibration's proposals: accepted, rejected by the held-out check, undone."),
                          labels: [("result", result)])
                .increment(by: Int64(a - b))
        }
        reported.withLock { $0 = now }
    }
}
