import BlueDotCore
import FoundationEssentials

/// Runs blocking work (a connect with a timeout, a few ioctls) on a fresh thread, so it never occupies one of
/// Swift's cooperative pool threads while it waits.
enum Blocking {
    /// Runs `body` on a new thread and returns its result.
    static func run<T: Sendable>(_ label: String,
                                 _ body: @escaping @Sendable () throws(SystemIOError) -> T) async throws(SystemIOError) -> T {
        let result: Result<T, SystemIOError> = await withCheckedContinuation { continuation in
            SystemThread.detach(name: "bluedot-\(label)") {
                do throws(SystemIOError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
