import Foundation

extension Process {
    /// Ends the process by its pid and reaps it: SIGTERM, then SIGKILL if it still runs after `graceSeconds` (a
    /// child of a thread that blocks signals, as the concurrency pool's do, starts with SIGTERM blocked). Nothing when
    /// it has already ended.
    func end(graceSeconds: Double = 10) {
        guard isRunning else { return }
        kill(processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(graceSeconds)
        while isRunning && Date() < deadline { usleep(20_000) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }
}
