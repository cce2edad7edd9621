import Foundation
import FuzzTargets
import Testing

/// Every input in `Tools/fuzz/corpus/<target>` (the seeds: real captures and fixtures) and
/// `Tools/fuzz/regressions/<target>` (each input that once crashed a target, named after what it found) goes
/// through its fuzz target again. A target traps when a property fails, so a regression stops this test run.
@Suite struct FuzzRegressionTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/fuzz")

    static func inputs(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func seedsRunClean(_ target: FuzzTarget) throws {
        let seeds = Self.inputs("corpus", target)
        #expect(seeds.count >= 2, "every target has seeds in Tools/fuzz/corpus/\(target.rawValue)")
        for url in seeds { target.run(try [UInt8](Data(contentsOf: url))) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func crashesStayFixed(_ target: FuzzTarget) throws {
        for url in Self.inputs("regressions", target) { target.run(try [UInt8](Data(contentsOf: url))) }
    }

    @Test func everyTargetHasADictionary() {
        for target in FuzzTarget.allCases {
            let path = Self.fuzzFolder.appendingPathComponent("dict/\(target.rawValue).dict").path
            #expect(FileManager.default.fileExists(atPath: path), "Tools/fuzz/dict/\(target.rawValue).dict")
        }
    }
}
