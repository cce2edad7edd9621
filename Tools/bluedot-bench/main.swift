import Foundation

// bluedot-bench: developer benchmarks and the accuracy tuning loop. Dispatches on the first argument.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "positioning":
    PositioningBenchmark.run(Array(arguments.dropFirst()))
case "accuracy":
    do {
        try AccuracyHarness.run(Array(arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("bluedot-bench accuracy: \(error)\n".utf8))
        exit(1)
    }
default:
    print("usage: bluedot-bench positioning [--observations N] [--targets N] [--anchors N]")
    print("       bluedot-bench accuracy [DATA_DIR] [key=value ...] [static.key=value ...]")
    exit(arguments.isEmpty ? 0 : 2)
}
