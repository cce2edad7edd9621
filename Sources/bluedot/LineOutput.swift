import Foundation
import Synchronization

/// Writes lines to standard output through one buffer, safe from any thread.
///
/// `flushEachLine` suits live scans (a reader sees each sighting at once); decoding a recording buffers 64 KiB.
final class LineOutput: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let flushEachLine: Bool

    init(flushEachLine: Bool) {
        self.flushEachLine = flushEachLine
    }

    /// Appends `line` and a newline.
    func write(_ line: String) {
        buffer.withLock { buffer in
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            if flushEachLine || buffer.count >= 1 << 16 { Self.drain(&buffer) }
        }
    }

    /// Writes out whatever is buffered.
    func flush() {
        buffer.withLock { Self.drain(&$0) }
    }

    private static func drain(_ buffer: inout [UInt8]) {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    break  // stdout is gone (a closed pipe): drop the output rather than crash
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
