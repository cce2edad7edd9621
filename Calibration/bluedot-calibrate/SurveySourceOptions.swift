import ArgumentParser
import ControllerOptions

/// Where survey readings come from: a controller, named as in `bluedot scan`, or a btsnoop recording replayed
/// window by window. Exactly one is given.
struct SurveySourceOptions: ParsableArguments {
    @OptionGroup var controller: ControllerOptions

    @Option(help: "Replay this btsnoop recording instead of scanning: each point takes the next --seconds of it.")
    var replay: String?

    func validate() throws {
        guard controller.sourcesGiven + (replay == nil ? 0 : 1) == 1 else {
            throw ValidationError("give exactly one of --hci, --h4-tcp, --h4-tty, --replay")
        }
    }
}
