import BlueDotCore
import HCI

/// Records HCI traffic to a btsnoop file (datalink 1002, H4) that Wireshark, `tshark` and `btmon -r` read.
///
/// Creates or truncates the file and writes the header at once. Each packet becomes one record written with a
/// single write(2) and no user-space buffering, so a crash loses at most the packet being written. Thread-safe:
/// records from several tasks are serialised. Timestamps are passed in (the caller owns the clock).
public final class BtsnoopRecorder: Sendable {
    /// The file being written.
    public let path: String
    private let state: LockedValue<State>

    private struct State {
        var file: BtsnoopFileDescriptor?
        var recordsWritten = 0
    }

    /// Creates (or truncates) the file at `path` and writes the btsnoop header.
    public init(path: String) throws(BtsnoopFileError) {
        self.path = path
        let file = try BtsnoopFileDescriptor.createForWriting(path)
        do { try file.write(BtsnoopWriter.fileHeader(datalink: .h4)) } catch {
            file.close()
            throw error
        }
        state = LockedValue(State(file: file))
    }

    /// Appends one packet with its direction and capture time.
    public func record(
        _ packet: HCIPacket, direction: HCIDirection, timestamp: BtsnoopTimestamp
    ) throws(BtsnoopFileError) {
        let bytes = BtsnoopWriter.record(packet, direction: direction, timestamp: timestamp)
        let result: Result<Void, BtsnoopFileError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            do throws(BtsnoopFileError) { try file.write(bytes) } catch { return .failure(error) }
            state.recordsWritten += 1
            return .success(())
        }
        try result.get()
    }

    /// Appends one packet stamped with seconds since the Unix epoch.
    public func record(_ packet: HCIPacket, direction: HCIDirection, unixSeconds: Double) throws(BtsnoopFileError) {
        try record(packet, direction: direction, timestamp: BtsnoopTimestamp(unixSeconds: unixSeconds))
    }

    /// How many records have been written.
    public var recordsWritten: Int { state.withLock { $0.recordsWritten } }

    /// Closes the file; later `record` calls throw `.closed`. Safe to call more than once.
    public func close() {
        state.withLock { state in
            state.file?.close()
            state.file = nil
        }
    }
}
