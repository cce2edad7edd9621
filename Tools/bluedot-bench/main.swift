import Foundation

// bluedot-bench: developer benchmarks and the accuracy tuning loop. Dispatches on the first argument.
let arguments = Array(CommandLine.arguments.dropFirst())

/// Runs a benchmark on the arguments after its name; an error is printed and exits 1.
func orExit(_ name: String, _ body: ([String]) throws -> Void) {
    do {
        try body(Array(arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("bluedot-bench \(name): \(error)\n".utf8))
        exit(1)
    }
}

switch arguments.first {
case "positioning":
    PositioningBenchmark.run(Array(arguments.dropFirst()))
case "engine":
    orExit("engine") { try EngineBenchmark.run($0) }
case "floor":
    orExit("floor") { try FloorBenchmark.run($0) }
case "accuracy":
    do {
        try await AccuracyHarness.run(Array(arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("bluedot-bench accuracy: \(error)\n".utf8))
        exit(1)
    }
case "rooms":
    orExit("rooms") { try RoomsBenchmark.run($0) }
case "presence":
    orExit("presence") { try PresenceBenchmark.run($0) }
case "walls":
    orExit("walls") { try WallsBenchmark.run($0) }
case "history":
    orExit("history") { try HistoryBenchmark.run($0) }
case "decode":
    orExit("decode") { try DecodeBenchmark.run($0) }
case "json":
    orExit("json") { try JSONBenchmark.run($0) }
case "devices":
    orExit("devices") { try DevicesBenchmark.run($0) }
case "latency":
    await LatencyBenchmark.run(Array(arguments.dropFirst()))
case "gateway":
    await GatewayBenchmark.run(Array(arguments.dropFirst()))
case "site":
    await SiteBenchmark.run(Array(arguments.dropFirst()))
case "campus":
    do {
        try await CampusBenchmark.run(Array(arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("bluedot-bench campus: \(error)\n".utf8))
        exit(1)
    }
case "soak":
    do {
        try await SoakBenchmark.run(Array(arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("bluedot-bench soak: \(error)\n".utf8))
        exit(1)
    }
default:
    print("usage: bluedot-bench positioning [--observations N] [--targets N] [--anchors N]")
    print("       bluedot-bench engine [--anchors N] [--tags N] [--seconds S] [--warmup S] [--rate HZ] [--rounds N] [--sleep-every N] [--no-site-evidence]")
    print("       bluedot-bench accuracy [DATA_DIR] [key=value ...] [static.key=value ...]")
    print("       bluedot-bench rooms [DATA_DIR] [--rooms DIR] [enter=P] [leave=P] [dwell=S]")
    print("       bluedot-bench presence FIXES VENUE [--away-timeout S] [--away-timeout-inside S] [--reach-seconds S]")
    print("                              [--lose-seconds K] [--exposure] [--trace SUFFIX]")
    print("       bluedot-bench walls [--seeds N] [--wall-loss DB] [--model-loss DB] [--temper T] [--particles N]")
    print("       bluedot-bench history [--tags N] [--rate HZ] [--seconds S] [--fixes N] [--path FILE]")
    print("       bluedot-bench decode [--reports N] [--file PATH] [--stage records|reports|sightings|json]")
    print("       bluedot-bench json [--items N] [--rounds N] [--binary PATH] [--reports N]")
    print("       bluedot-bench devices [--irks N] [--strangers PER_S] [--seconds S] [--rotate S]")
    print("       bluedot-bench latency [--seconds S] [--pace X] [--seed N]")
    print("       bluedot-bench floor [--seconds S] [--quanta MS,MS,...] [--fixes PER_S] [--frame BYTES] [--reports PER_S]")
    print("       bluedot-bench gateway [--binary PATH] [--anchors N] [--tags N] [--seconds S] [--warmup S] [--rate HZ] [--option FLAG ...]")
    print("       bluedot-bench site [--binary PATH] [--receivers N] [--tags N] [--seconds S] [--warmup S] [--rates HZ,HZ] [--window S]")
    print("                          [--option FLAG ...]")
    print("       bluedot-bench campus [--binary PATH] [--sites N] [--tags N] [--interval S] [--seconds S] [--warmup S] [--bridge] [--no-history]")
    print("       bluedot-bench soak [--binary PATH] [--minutes M] [--rate PER_S] [--tags N] [--receivers N] [--broker-interval S]")
    print("                          [--broker-down S] [--world-interval S] [--world-down S] [--sample S] [--limit S]")
    print("                          [--python PATH] [--world PY] [--world-config JSON] [--scratch DIR] [--summary FILE]")
    print("                          [--solver-option FLAG ...]")
    exit(arguments.isEmpty ? 0 : 2)
}
