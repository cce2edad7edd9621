import Foundation

/// Runs blocking work (a connect with a timeout, a few ioctls) on a fresh thread, so it never occupies one of
/// Swift's cooperative pool threads while it waits.
enum Blocking {
    /// Runs `body` on a new thread and returns its result.
    static func run<T: Sendable>(_ label: String,
                                 _ body: @escaping @Sendable () throws(HCILinuxError) -> T) async throws(HCILinuxError) -> T {
        let result: Result<T, HCILinuxError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(HCILinuxError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "bluedot-\(label)"
            thread.start()
        }
        return try result.get()
    }
}
