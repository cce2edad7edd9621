/// Reads small strict JSONL files (truth, locations) line by line: blank lines are skipped, any other bad line
/// is an error naming the file and line.
public enum JSONLines {
    /// Parses every non-blank line of `source` with `parse`.
    public static func readAll<T>(source: any ByteChunkSource, name: String,
                           parse: (inout JSONScanner) throws(JSONSyntaxError) -> T) throws(JSONLinesError) -> [T] {
        var lines = LineSplitter(source: source, chunkSize: 1 << 16)
        var values: [T] = []
        while let line = try lines.next() {
            if line.tooLong { throw JSONLinesError(file: name, line: line.number, message: "line longer than 1 MiB") }
            let result: Result<T, JSONSyntaxError>? = lines.buffer.withUnsafeBufferPointer { all in
                var s = JSONScanner(UnsafeBufferPointer(rebasing: all[line.range]))
                if s.atEnd() { return nil }
                do throws(JSONSyntaxError) {
                    let value = try parse(&s)
                    guard s.atEnd() else { throw s.error("unexpected text after the object") }
                    return .success(value)
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case nil: continue
            case .success(let value)?: values.append(value)
            case .failure(let error)?:
                throw JSONLinesError(file: name, line: line.number,
                                     message: error.located)
            }
        }
        return values
    }
}
