import Foundation
import SystemIO

/// The test sets of a scenario file (`sets.json` of the shared data folder): venue, observations, truth and the
/// surveys to calibrate on, per set. Paths are resolved against the scenario file's folder; only sets whose
/// `split` is `visible` (or missing) are kept.
public struct AccuracyScenario: Sendable, Hashable {
    /// One test set.
    public struct TestSet: Sendable, Hashable {
        /// The set's name (the baseline's key).
        public var name: String
        /// Absolute paths.
        public var venue: String, observations: String, truth: String
        /// Survey files the venue is calibrated on first.
        public var calibration: [String]
        /// Static scans (scored and replayed in the stationary mode).
        public var isStatic: Bool
    }

    /// A scenario file that could not be used.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the file.
        public var description: String
    }

    /// The sets, in file order.
    public var sets: [TestSet]

    /// Reads a scenario file.
    public init(path: String) throws(LoadError) {
        let file = path
        let folder = (path as NSString).deletingLastPathComponent
        let root: [String: Any]
        do {
            let data = Data(try WholeFile.read(path))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw LoadError(description: "\(path): expected a JSON object")
            }
            root = object
        } catch let e as LoadError {
            throw e
        } catch {
            throw LoadError(description: "\(path): \(error.localizedDescription)")
        }
        guard let sets = root["sets"] as? [[String: Any]] else {
            throw LoadError(description: "\(path): sets: expected an array of objects")
        }
        var result: [TestSet] = []
        for (i, s) in sets.enumerated() where (s["split"] as? String ?? "visible") == "visible" {
            func resolved(_ key: String) throws(LoadError) -> String {
                guard let p = s[key] as? String else {
                    throw LoadError(description: "\(file): sets[\(i)].\(key): expected a string")
                }
                return p.hasPrefix("/") ? p : folder + "/" + p
            }
            guard let name = s["name"] as? String else {
                throw LoadError(description: "\(file): sets[\(i)].name: expected a string")
            }
            let calibration = (s["calibration"] as? [String] ?? []).map { $0.hasPrefix("/") ? $0 : folder + "/" + $0 }
            result.append(TestSet(name: name, venue: try resolved("venue"), observations: try resolved("observations"),
                                  truth: try resolved("truth"), calibration: calibration,
                                  isStatic: s["static"] as? Bool ?? false))
        }
        self.sets = result
    }
}
