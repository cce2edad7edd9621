import BlueDotCore
import FoundationEssentials

/// Hands batches from one producing thread to one consuming thread in order, holding at most `depth` batches
/// (the producer waits when the consumer falls behind, so memory stays bounded).
///
/// `bluedot decode` reads and decodes a recording on one thread and writes the JSON lines on another.
final class BatchHandoff<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `queue`, `finished` and `consumed` are only touched while `condition` is locked.
    private let condition = ThreadCondition()
    private var queue: [[Element]] = []
    private var finished = false
    private var consumed = false
    private let depth: Int

    /// A handoff holding up to `depth` batches (at least 1).
    init(depth: Int) {
        self.depth = max(1, depth)
    }

    /// Adds a batch, waiting while `depth` batches are already waiting.
    func put(_ batch: [Element]) {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= depth { condition.wait() }
        queue.append(batch)
        condition.broadcast()
    }

    /// Marks the end: `take` returns nil once the waiting batches are taken.
    func finish() {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        condition.broadcast()
    }

    /// Called by the consumer when it is done with the last batch it took.
    func consumerDone() {
        condition.lock()
        defer { condition.unlock() }
        consumed = true
        condition.broadcast()
    }

    /// Waits until the consumer has called `consumerDone()`.
    func waitForConsumer() {
        condition.lock()
        defer { condition.unlock() }
        while !consumed { condition.wait() }
    }

    /// The next batch, waiting for one; nil after `finish` when none is left.
    func take() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        guard !queue.isEmpty else { return nil }
        let batch = queue.removeFirst()
        condition.broadcast()
        return batch
    }
}
