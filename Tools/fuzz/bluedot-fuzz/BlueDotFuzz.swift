import CLibFuzzer
import FuzzTargets

import BlueDotCore

#if canImport(Glibc)
import Glibc
#endif

/// The libFuzzer binary: runs libFuzzer's driver (its command line: corpus folders, `-runs=`, `-dict=`, ...) on
/// the target named by `BLUEDOT_FUZZ_TARGET` (`Tools/fuzz/run` sets it).
///
/// The driver is called from a Swift `main` rather than linked as the program's `main`: SwiftPM names an
/// executable's entry point after its module and links `main` to it.
@main
enum BlueDotFuzz {
    static func main() {
        let name = getenv("BLUEDOT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
            var message = "bluedot-fuzz: set BLUEDOT_FUZZ_TARGET to one of: \(names)\n"
            message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            exit(2)
        }
        selected.withLock { $0 = target }
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            selected.withLock { $0 }.run(bytes)
            return 0
        })
    }
}

/// The target chosen at start; read by libFuzzer's callback, which cannot capture it.
let selected = LockedValue(FuzzTarget.h4)
