import BlueDotCore
import FoundationEssentials

/// Runs blocking work (a connect with a timeout, a few ioctls) on a fresh thread, so it never occupies one of
/// Swift's cooperative pool threads while it waits.
enum Blocking {
    /// Runs `body` on a new thread and returns its result.
    static func run<T: Sendable>(_ label: String,
                                 _ body: @escaping @Sendable () throws(HCILinuxError) -> T) async throws(HCILinuxError) -> T {
        let result: Result<T, HCILinuxError> = await withCheckedContinuation { continuation in
            SystemThread.detach(name: "bluedot-\(label)") {
                do throws(HCILinuxError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
