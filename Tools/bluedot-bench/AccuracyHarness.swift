import BeaconLocation
import CalibrationRuns
import Formats
import Foundation
import Positioning

/// `bluedot-bench accuracy [DATA_DIR] [key=value ...]`: replays every visible set of `sets.json` in-process
/// with one engine configuration and prints the scoring table (the tuning loop; `Tools/accuracy.sh` runs the
/// same through the `bluedot` commands).
enum AccuracyHarness {
    struct DataSet {
        var name: String, venue: String, observations: String, truth: String, calibration: [String]
        var isStatic: Bool
    }

    static func loadSets(_ directory: String) throws -> [DataSet] {
        let url = URL(fileURLWithPath: directory).appendingPathComponent("sets.json")
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let sets = root?["sets"] as? [[String: Any]] ?? []
        return sets.filter { ($0["split"] as? String ?? "visible") == "visible" }.map { s in
            func path(_ p: Any?) -> String { directory + "/" + (p as? String ?? "") }
            return DataSet(name: s["name"] as? String ?? "?", venue: path(s["venue"]),
                           observations: path(s["observations"]), truth: path(s["truth"]),
                           calibration: (s["calibration"] as? [String] ?? []).map { directory + "/" + $0 },
                           isStatic: s["static"] as? Bool ?? false)
        }
    }

    /// Applies `key=value` overrides to a configuration.
    static func apply(_ overrides: [String], to c: inout EngineConfiguration) {
        for o in overrides where !o.hasPrefix("cal.") {
            let parts = o.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let v = Double(parts[1]) ?? 0
            switch parts[0] {
            case "interval": c.intervalSeconds = v
            case "updateInterval": c.updateIntervalSeconds = v
            case "offset": c.commonOffsetSigmaDB = v > 0 ? v : nil
            case "bodyShadow": c.usesBodyShadow = v != 0
            case "shadowSigma": break  // replaces the calibration's estimate, after calibrating
            case "near": c.nearFieldMeters = v
            case "s0": c.scalesFixByResidual = v != 0
            case "spatialMedian": c.gridSpatialMedian = v != 0
            case "studentT": c.studentDegreesOfFreedom = v > 0 ? v : nil
            case "sampleTime": c.updatesAtSampleTime = v != 0
            case "q": c.accelerationNoise = v
            case "v0": c.initialVelocitySigma = v
            case "vmax": c.maximumSpeed = v
            case "sigmaScale": c.sigmaScale = v
            case "jitter": c.jitterSigmaDB = v
            case "gate": c.gate = v
            case "huber": c.huberThreshold = v
            case "window": c.filterWindowSeconds = v
            case "hampel": c.filterThreshold = v
            case "hampelFloor": c.filterSigmaFloorDB = v
            case "radiusScale": c.radiusScale = v
            case "radiusFloor": c.radiusFloorMeters = v
            case "height": c.targetHeightMeters = v
            case "holdover": c.holdoverSeconds = v
            case "gridMax": c.gridPosteriorMaxAnchors = Int(v)
            case "cell": c.gridCellMeters = v
            case "truncate": c.truncateToBounds = v != 0
            case "field": c.usesResidualField = v != 0
            case "multiStart": c.multiStart = v != 0
            case "triMin": c.trilaterationMinimumAnchors = Int(v)
            case "weaken": c.trackingPriorWeakening = v
            case "fixAdapt": c.fixNoiseAdaptation = v
            case "q2": c.manoeuvreAccelerationNoise = v > 0 ? v : nil
            case "switch": c.modelSwitchRatePerSecond = v
            case "update": c.update = EngineConfiguration.UpdateMethod(rawValue: parts[1]) ?? c.update
            case "source": c.rssiSource = EngineConfiguration.RSSISource(rawValue: parts[1]) ?? c.rssiSource
            default: FileHandle.standardError.write(Data("unknown key \(parts[0])\n".utf8))
            }
        }
    }

    static func run(_ arguments: [String]) async throws {
        let directory = arguments.first { !$0.contains("=") } ?? "../shared/data"
        let overrides = arguments.filter { $0.contains("=") }
        // Plain keys apply to every set; `moving.key=value` and `static.key=value` to one kind only.
        func strip(_ o: String, _ prefix: String) -> String? {
            o.hasPrefix(prefix) ? String(o.dropFirst(prefix.count)) : nil
        }
        let plain = overrides.filter { !$0.hasPrefix("moving.") && !$0.hasPrefix("static.") }
        let moving = plain + overrides.compactMap { strip($0, "moving.") }
        let stationary = plain + overrides.compactMap { strip($0, "static.") }
        print("set                         median    p90  cov68  missing")
        for set in try loadSets(directory) {
            var configuration = set.isStatic ? EngineConfiguration.stationary : EngineConfiguration.moving
            apply(set.isStatic ? stationary : moving, to: &configuration)
            let venue = try VenueLoader.load(path: set.venue)
            var calibrator = PathLossCalibrator()
            var field = ResidualField.Parameters()
            var usesField = true
            for o in overrides where o.hasPrefix("cal.") {
                let kv = o.dropFirst(4).split(separator: "=").map(String.init)
                let v = Double(kv[1]) ?? 0
                switch kv[0] {
                case "shrink": calibrator.shrinkageSamples = v
                case "huber": calibrator.huberThreshold = v
                case "dmin": calibrator.minimumDistanceMeters = v
                case "field": usesField = v != 0
                case "ell": field.lengthScaleMeters = v
                case "tau": field.priorSigmaDB = v
                case "bin": field.binMeters = v
                case "binSigma": field.binSigmaDB = v
                case "fieldGrid": field.gridMeters = v
                case "leaveOut": break
                default: FileHandle.standardError.write(Data("unknown key cal.\(kv[0])\n".utf8))
                }
            }
            // `cal.leaveOut=1`: calibrate without the set's own survey (when others remain), a proxy for runs
            // the calibration never saw; a moving set with one survey made of runs apart in time (WUT)
            // calibrates on its first half of runs and is scored on the rest, a static set (UJI: two passes
            // over the same points) on the scans of its first half of time and is scored on the second.
            var surveys = set.calibration
            var scoredFrom = -Double.infinity
            if overrides.contains("cal.leaveOut=1") {
                let others = surveys.filter { !$0.hasSuffix("/" + set.name + ".survey.jsonl") }
                if !others.isEmpty {
                    surveys = others
                } else if let split = try RunSplit(truthPath: set.truth, halves: set.isStatic), surveys.count == 1 {
                    surveys = [try split.writeSurvey(surveys[0], before: split.cut)]
                    scoredFrom = split.cut
                }
            }
            let calibrated = try calibrate(venue: venue, surveys: surveys, calibrator: calibrator,
                                           field: usesField ? field : nil, into: &configuration)
            if let o = (set.isStatic ? stationary : moving).last(where: { $0.hasPrefix("shadowSigma=") }) {
                configuration.bodyShadowSigmaDB = Double(o.dropFirst("shadowSigma=".count))
            }
            if let folder = ProcessInfo.processInfo.environment["BENCH_VENUES"] {
                // Writes the calibrated venue (for test fixtures and inspection).
                let path = folder + "/" + set.name + ".calibrated.venue.json"
                try Data(VenueWriter.json(calibrated.venue).utf8).write(to: URL(fileURLWithPath: path))
            }
            let replay = ReplayRun(venue: calibrated.venue, configuration: configuration)
            let (fixes, _) = try await replay.run(path: set.observations)
            let truth = try TruthReader.read(path: set.truth).filter { $0.t >= scoredFrom }
            if let folder = ProcessInfo.processInfo.environment["BENCH_FIXES"] {
                // Writes the fixes (for inspection).
                let path = folder + "/" + set.name + ".locations.jsonl"
                try Data(LocationWriter.text(fixes).utf8).write(to: URL(fileURLWithPath: path))
            }
            let report = Evaluator.evaluate(fixes: fixes, truth: truth,
                                            scoring: set.isStatic ? .stationary : .movingDefault)
            if ProcessInfo.processInfo.environment["BENCH_DEBUG"] != nil {
                let site = calibrated.result.site.model
                print(String(format: "  site P0 %.1f n %.2f sigma %.1f height %.2f", site.measuredPowerDBm,
                             site.pathLossExponent, site.shadowingSigmaDB, calibrated.result.targetHeightMeters ?? -1))
                if let b = calibrated.bodyShadow {
                    print(String(format: "  body shadow %.2f dB per component from %d moments (within %.2f dB)",
                                 b.sigmaDB, b.moments, b.withinSigmaDB))
                }
                for a in venue.anchors {
                    guard let f = calibrated.result.anchors[a.id] else { continue }
                    if let layer = calibrated.residualField?.layers[a.id] {
                        let b = layer.bias.map(abs).max() ?? 0
                        print(String(format: "  %@ field: sigma after %.1f dB, largest |bias| %.1f dB", a.id,
                                     layer.sigmaDB, b))
                    }
                    print(String(format: "  %@ P0 %.1f n %.2f sigma %.1f samples %d%@", a.id, f.model.measuredPowerDBm,
                                 f.model.pathLossExponent, f.model.shadowingSigmaDB, f.samples, f.clamped ? " clamped" : ""))
                }
                var byCount: [Int: [Double]] = [:]
                for p in Evaluator.score(fixes: fixes, truth: truth, scoring: set.isStatic ? .stationary : .movingDefault) {
                    byCount[min(p.fix.anchorCount, 12), default: []].append(p.errorMeters)
                }
                for (k, e) in byCount.sorted(by: { $0.key < $1.key }) {
                    let s = e.sorted()
                    print(String(format: "  anchors %2d: n %4d median %.2f", k, s.count, s[s.count / 2]))
                }
            }
            let line = String(format: "%@ %6.2f %6.2f  %5.2f  %d/%d", set.name.padding(toLength: 26, withPad: " ", startingAt: 0),
                              report.median ?? .nan, report.p90 ?? .nan, report.coverage68 ?? .nan,
                              report.missing, report.total)
            print(line)
        }
    }
}

extension AccuracyHarness {
    /// Calibrates `venue` on `surveys` (`SurveyCalibration`) and sets what the calibration found in
    /// `configuration`: the target height (unless set), the residual field and the body-shadow sigma.
    static func calibrate(venue: Venue, surveys: [String], calibrator: PathLossCalibrator = PathLossCalibrator(),
                          field: ResidualField.Parameters? = ResidualField.Parameters(),
                          into configuration: inout EngineConfiguration) throws -> SurveyCalibration.Outcome {
        let calibrated = try SurveyCalibration.calibrate(venue: venue, surveys: surveys, calibrator: calibrator,
                                                         field: field)
        if configuration.targetHeightMeters == nil {
            configuration.targetHeightMeters = calibrated.result.targetHeightMeters
        }
        configuration.residualField = calibrated.residualField
        configuration.bodyShadowSigmaDB = calibrated.bodyShadow?.sigmaDB
        return calibrated
    }

    /// A set recorded as runs apart in time (gaps over 10 min, WUT): calibrate on the first half of the runs,
    /// score on the rest; or (static sets, UJI's two passes) on the first half of the time span
    /// (`cal.leaveOut=1`).
    struct RunSplit {
        /// The first truth time of the held-out runs.
        var cut: Double

        /// Nil when the truth has fewer than two runs; with `halves`, the cut is the middle of the time span.
        init?(truthPath: String, halves: Bool = false) throws {
            let times = try TruthReader.read(path: truthPath).map(\.t)
            if halves, let first = times.first, let last = times.last, last > first {
                cut = 0.5 * (first + last)
                return
            }
            var starts: [Double] = []
            for (a, b) in zip(times, times.dropFirst()) where b - a > 600 { starts.append(b) }
            guard !starts.isEmpty else { return nil }
            // Runs 1..k calibrate, k+1.. are scored, k = half the runs (rounded up).
            let runs = starts.count + 1
            cut = starts[(runs + 1) / 2 - 1]
        }

        /// Writes the survey lines before `before` to a temporary file and returns its path.
        func writeSurvey(_ path: String, before: Double) throws -> String {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            var kept = ""
            for line in text.split(separator: "\n") {
                // Lines start `{"t": <time>,`.
                guard let colon = line.firstIndex(of: ":"), let comma = line.firstIndex(of: ","),
                      let t = Double(line[line.index(after: colon)..<comma].trimmingCharacters(in: .whitespaces)),
                      t < before else { continue }
                kept += line + "\n"
            }
            let out = NSTemporaryDirectory() + "bluedot-runsplit-\(ProcessInfo.processInfo.processIdentifier).jsonl"
            try kept.write(toFile: out, atomically: true, encoding: .utf8)
            return out
        }
    }
}
