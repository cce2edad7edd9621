import ServiceLifecycle
import UnixSignals

/// `SIGHUP` rereads the venue and the device registry from their files (`SiteFiles.reload`), the Unix habit that
/// systemd's `ExecReload=kill -HUP $MAINPID` follows. Runs until the service group shuts down.
struct HangupReload: Service {
    let files: SiteFiles

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withGracefulShutdownHandler {
            for await _ in hangups.cancelOnGracefulShutdown() { files.reload() }
        } onGracefulShutdown: {}
    }
}
