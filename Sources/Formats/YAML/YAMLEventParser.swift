import CYAML

/// libyaml's event parser (`yaml_parser_parse`) over bytes in memory: the one place BlueDot holds a
/// `yaml_parser_t`. It owns the parser and a copy of the input for as long as it lives, copies every event out
/// as a Swift value and frees libyaml's at once, and turns libyaml's errors into `YAMLSyntaxError`s with a
/// 1-based line and column.
///
/// libyaml reads YAML 1.1 (and documents marked `%YAML 1.2`) in UTF-8 or UTF-16 with or without a byte order
/// mark; it refuses bytes that are not in the encoding and control characters (a reader error, which it gives as a
/// byte offset: the line and column are counted here from the input).
final class YAMLEventParser {
    /// What libyaml reports, as much of it as BlueDot's tree needs.
    enum Kind: Equatable {
        case streamStart, streamEnd
        case documentStart, documentEnd
        /// `*name`.
        case alias(String)
        /// A scalar's text; `plain` when written without quotes, block style or the `!!str` tag.
        case scalar(String, plain: Bool, anchor: String?)
        case sequenceStart(anchor: String?), sequenceEnd
        case mappingStart(anchor: String?), mappingEnd
    }

    /// One event and where it starts (1-based line and column, the column in characters).
    struct Event {
        var kind: Kind
        var line: Int
        var column: Int
    }

    private let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
    private let input: UnsafeMutableBufferPointer<UInt8>
    private let length: Int

    /// A parser over a copy of `bytes`.
    init(_ bytes: [UInt8]) {
        length = bytes.count
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        // yaml_parser_initialize fails only when it cannot allocate its buffers; then the first event reports it.
        _ = yaml_parser_initialize(parser)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// The next event; after `streamEnd` libyaml gives `streamEnd` again.
    func next() throws(YAMLSyntaxError) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw error() }
        defer { yaml_event_delete(&event) }
        let line = Int(event.start_mark.line) + 1, column = Int(event.start_mark.column) + 1
        let kind: Kind
        switch event.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_ALIAS_EVENT: kind = .alias(Self.text(event.data.alias.anchor) ?? "")
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let keepsText = Self.text(scalar.tag) == "tag:yaml.org,2002:str"
            kind = .scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE && !keepsText,
                           anchor: Self.text(scalar.anchor))
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart(anchor: Self.text(event.data.sequence_start.anchor))
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart(anchor: Self.text(event.data.mapping_start.anchor))
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        default: kind = .streamEnd  // YAML_NO_EVENT: libyaml gives it only after an error it has reported
        }
        return Event(kind: kind, line: line, column: column)
    }

    /// A NUL-terminated UTF-8 string of libyaml's, or nil.
    private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }

    /// libyaml's error: its problem, the context it was in, and where.
    private func error() -> YAMLSyntaxError {
        let p = parser.pointee
        var message = p.problem.map { String(cString: $0) } ?? "libyaml failed (error \(p.error.rawValue))"
        if p.error == YAML_READER_ERROR {
            // The reader reports a byte offset and the offending byte or character, not a mark.
            if p.problem_value >= 0 { message += " (0x\(String(p.problem_value, radix: 16, uppercase: true)))" }
            let (line, column) = position(ofByte: Int(p.problem_offset))
            return YAMLSyntaxError(line: line, column: column, message: message)
        }
        if let context = p.context.map({ String(cString: $0) }) {
            message += ", \(context) at line \(p.context_mark.line + 1), column \(p.context_mark.column + 1)"
        }
        return YAMLSyntaxError(line: Int(p.problem_mark.line) + 1, column: Int(p.problem_mark.column) + 1,
                               message: message)
    }

    /// The 1-based line and character column of a byte offset of the input (line breaks LF, CR LF or CR).
    private func position(ofByte offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1
        var k = 0
        while k < min(offset, length) {
            let b = input[k]
            if b == 0x0A || (b == 0x0D && (k + 1 >= length || input[k + 1] != 0x0A)) {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80, b != 0x0D {
                column += 1
            }
            k += 1
        }
        return (line, column)
    }
}
