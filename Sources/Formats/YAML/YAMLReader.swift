/// Reads one YAML 1.2 document into `YAMLNode`s: what configuration files written by hand use.
///
/// It reads block mappings and lists (a list may sit at its key's indentation), flow lists and mappings
/// (`[1, 2]`, `{a: 1}`, over several lines too), plain, single- and double-quoted scalars (escapes, line folding),
/// literal and folded block scalars (`|`, `>`, with chomping and indentation indicators), comments, anchors and
/// aliases, tags (`!!str` keeps a scalar text; other tags are read and ignored), directives and the `---`/`...`
/// markers of a single document. It refuses, with the line and column: tabs that indent, duplicate keys, complex
/// keys (`?`), a second document, directives without `---`, more than 100 levels of nesting, and aliases that
/// would copy more than 100,000 nodes ("billion laughs"). Text is UTF-8; `\r\n` and a lone `\r` count as `\n`.
///
/// Why not Yams (libyaml): Yams imports Foundation, which would load Foundation and ICU (8 MiB resident) into
/// the daemon for the one file it reads.
struct YAMLReader {
    private var bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private var anchors: [String: YAMLNode] = [:]
    private var copied = 0

    static let maximumDepth = 100
    static let maximumAliasCopies = 100_000

    /// The document in `text`, or nil when it has none (empty, or only comments).
    static func document(_ text: String) throws(YAMLSyntaxError) -> YAMLNode? {
        var reader = YAMLReader(text)
        return try reader.readDocument()
    }

    private init(_ text: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var previous: UInt8 = 0
        for b in text.utf8 {
            // A line break is LF, CR LF or a CR alone.
            if b == 0x0A, previous == 0x0D {
                previous = b
                continue
            }
            bytes.append(b == 0x0D ? 0x0A : b)
            previous = b
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        self.bytes = bytes
    }

    // MARK: Position

    private var column: Int { i - lineStart }
    /// Nothing but spaces before here on the line: where a block collection stops, having looked ahead to the
    /// next line's content. A scalar or flow collection stops within its line instead.
    private var atIndentation: Bool { bytes[lineStart..<min(i, bytes.count)].allSatisfy { $0 == UInt8(ascii: " ") } }
    private var atEnd: Bool { i >= bytes.count }
    private func byte(_ k: Int = 0) -> UInt8? { i + k < bytes.count ? bytes[i + k] : nil }

    private func isBlank(_ b: UInt8?) -> Bool {
        b == nil || b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == 0x0A || b == 0x0D
    }

    private func isFlowIndicator(_ b: UInt8?) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]") || b == UInt8(ascii: "{")
            || b == UInt8(ascii: "}")
    }

    private mutating func advance() {
        if bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        i += 1
    }

    private func error(_ message: String) -> YAMLSyntaxError {
        YAMLSyntaxError(line: line, column: column + 1, message: message)
    }

    private func describeHere() -> String {
        guard let b = byte() else { return "the end of the file" }
        if b == 0x0A { return "the end of the line" }
        var k = i
        while k < bytes.count, !isBlank(bytes[k]), k - i < 20 { k += 1 }
        return "'\(String(decoding: bytes[i..<max(k, i + 1)], as: UTF8.self))'"
    }

    /// Spaces and tabs within the line.
    private mutating func skipInlineSpace() {
        while let b = byte(), b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") { i += 1 }
    }

    /// A comment, up to (not including) the end of its line.
    private mutating func skipComment() {
        guard byte() == UInt8(ascii: "#") else { return }
        while let b = byte(), b != 0x0A { i += 1 }
    }

    /// Skips blank lines, comments and indentation up to the next content. False at the end of the text.
    /// Tabs may not indent a line that has content.
    private mutating func skipToContent() throws(YAMLSyntaxError) -> Bool {
        while let b = byte() {
            if b == UInt8(ascii: " ") {
                i += 1
            } else if b == UInt8(ascii: "\t") {
                let onlyWhitespaceBefore = bytes[lineStart..<i].allSatisfy { $0 == UInt8(ascii: " ") || $0 == 9 }
                if onlyWhitespaceBefore {
                    var k = i
                    while k < bytes.count, bytes[k] == UInt8(ascii: " ") || bytes[k] == 9 { k += 1 }
                    if k < bytes.count, bytes[k] != 0x0A, bytes[k] != UInt8(ascii: "#") {
                        throw error("a tab indents this line; YAML indents with spaces")
                    }
                }
                i += 1
            } else if b == 0x0A {
                advance()
            } else if b == UInt8(ascii: "#") {
                skipComment()
            } else {
                return true
            }
        }
        return false
    }

    /// `---` or `...` at the start of a line, followed by a blank or the end.
    private func atMarker(_ marker: UInt8) -> Bool {
        column == 0 && byte() == marker && byte(1) == marker && byte(2) == marker && isBlank(byte(3))
    }

    /// The rest of the line must be blank or a comment.
    private mutating func expectEndOfLine(after what: String) throws(YAMLSyntaxError) {
        skipInlineSpace()
        skipComment()
        guard atEnd || byte() == 0x0A else { throw error("unexpected \(describeHere()) after \(what)") }
    }

    // MARK: Document

    private mutating func readDocument() throws(YAMLSyntaxError) -> YAMLNode? {
        try checkPrintable()
        guard try skipToContent() else { return nil }
        var directives = false
        while column == 0, byte() == UInt8(ascii: "%") {
            let start = i
            while let b = byte(), b != 0x0A { i += 1 }
            let words = String(decoding: bytes[start..<i], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.first == "%YAML" {
                let version = words.count > 1 ? words[1].split(separator: ".", omittingEmptySubsequences: false) : []
                guard version.count == 2, version.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && UInt($0) != nil })
                else {
                    i = start
                    throw error("expected a version after %YAML (%YAML 1.2)")
                }
            }
            directives = true
            guard try skipToContent() else { throw error("a directive (%) must be followed by '---'") }
        }
        var explicit = false
        if directives, !atMarker(UInt8(ascii: "-")) { throw error("a directive (%) must be followed by '---'") }
        if atMarker(UInt8(ascii: "-")) {
            i += 3
            explicit = true
            skipInlineSpace()
        }
        let node: YAMLNode?
        let startLine = line
        if try !skipToContent() || atMarker(UInt8(ascii: ".")) || atMarker(UInt8(ascii: "-")) {
            node = explicit ? YAMLNode(content: .scalar("", plain: true), line: startLine, column: 1) : nil
        } else {
            node = try block(parentIndent: -1, collectionsAllowed: true)
        }
        guard try skipToContent() else { return node }
        if atMarker(UInt8(ascii: ".")) {
            i += 3
            guard try skipToContent() else { return node }
        }
        if atMarker(UInt8(ascii: "-")) { throw error("a second document (---): only one is read") }
        throw error("unexpected \(describeHere()) after the document's top node")
    }

    /// YAML's characters are printable: no C0 control but tab and line breaks, no DEL, no C1 control but NEL
    /// (U+0085). Quoted text may still write any of them as an escape.
    private func checkPrintable() throws(YAMLSyntaxError) {
        var line = 1, lineStart = 0
        for k in bytes.indices {
            let b = bytes[k]
            if b == 0x0A {
                line += 1
                lineStart = k + 1
                continue
            }
            let c1 = b == 0xC2 && k + 1 < bytes.count && (0x80...0x9F).contains(bytes[k + 1]) && bytes[k + 1] != 0x85
            if (b < 0x20 && b != 9) || b == 0x7F || c1 {
                let code = c1 ? UInt32(bytes[k + 1]) : UInt32(b)
                let hex = String(code, radix: 16, uppercase: true)
                throw YAMLSyntaxError(line: line, column: k - lineStart + 1,
                                      message: "the control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex) is not allowed in YAML; write it as an escape in double quotes")
            }
        }
    }

    // MARK: Block context

    /// A node starting here (at content), inside a parent indented `parentIndent` spaces (-1 at the top).
    /// `collectionsAllowed` is false on a key's line: `key: a: b` and `key: - a` are not YAML.
    private mutating func block(parentIndent: Int, collectionsAllowed: Bool) throws(YAMLSyntaxError) -> YAMLNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        let startLine = line, startColumn = column
        let (anchor, tagKeepsText) = try properties(flow: false)
        var node: YAMLNode
        if anchor != nil || tagKeepsText != nil, atEnd || byte() == 0x0A || byte() == UInt8(ascii: "#") {
            // Properties alone on their line: the node follows, indented.
            skipComment()
            if try skipToContent(), column > parentIndent, !atMarker(UInt8(ascii: "-")), !atMarker(UInt8(ascii: ".")) {
                node = try block(parentIndent: parentIndent, collectionsAllowed: true)
            } else {
                node = YAMLNode(content: .scalar("", plain: true), line: startLine, column: startColumn + 1)
            }
        } else {
            node = try blockContent(parentIndent: parentIndent, collectionsAllowed: collectionsAllowed,
                                    keepsText: tagKeepsText == true)
        }
        if let anchor { anchors[anchor] = node }
        return node
    }

    private mutating func blockContent(parentIndent: Int, collectionsAllowed: Bool, keepsText: Bool)
        throws(YAMLSyntaxError) -> YAMLNode
    {
        let startLine = line, startColumn = column
        guard let b = byte() else { throw error("expected a value") }
        if b == UInt8(ascii: "*") { return try alias() }
        if b == UInt8(ascii: "-"), isBlank(byte(1)) {
            guard collectionsAllowed else { throw error("a list cannot start on the line of its key") }
            return try blockSequence(indent: column, compact: false)
        }
        if b == UInt8(ascii: "?"), isBlank(byte(1)) { throw error("complex mapping keys ('?') are not supported") }
        if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
            let node = try flowCollection()
            skipInlineSpace()
            if byte() == UInt8(ascii: ":") { throw error("a list or mapping cannot be a mapping's key") }
            return node
        }
        if b == UInt8(ascii: "|") || b == UInt8(ascii: ">") {
            return YAMLNode(content: .scalar(try blockScalar(parentIndent: parentIndent), plain: false),
                            line: startLine, column: startColumn + 1)
        }
        // A scalar: a key when ': ' follows it on its line.
        var (text, plain) = try scalarOnLine(flow: false)
        skipInlineSpace()
        if byte() == UInt8(ascii: ":"), isBlank(byte(1)) {
            guard collectionsAllowed else { throw error("a mapping cannot start on the line of its key") }
            return try blockMapping(indent: startColumn, firstKey: text, keyLine: startLine)
        }
        if plain { text = try plainContinuation(text, parentIndent: parentIndent) }
        return YAMLNode(content: .scalar(text, plain: plain && !keepsText), line: startLine, column: startColumn + 1)
    }

    private mutating func blockSequence(indent: Int, compact: Bool) throws(YAMLSyntaxError) -> YAMLNode {
        let startLine = line
        var items: [YAMLNode] = []
        while true {
            let itemLine = line
            i += 1 // the '-'
            skipInlineSpace()
            if atEnd || byte() == 0x0A || byte() == UInt8(ascii: "#") {
                skipComment()
                if try skipToContent(), column > indent, !atMarker(UInt8(ascii: "-")), !atMarker(UInt8(ascii: ".")) {
                    items.append(try block(parentIndent: indent, collectionsAllowed: true))
                } else {
                    items.append(YAMLNode(content: .scalar("", plain: true), line: itemLine, column: indent + 2))
                }
            } else {
                items.append(try block(parentIndent: indent, collectionsAllowed: true))
                if !atIndentation { try expectEndOfLine(after: "a list item") }
            }
            guard try skipToContent(), !atMarker(UInt8(ascii: "-")), !atMarker(UInt8(ascii: ".")), column >= indent
            else { break }
            if column > indent {
                throw error("unexpected indentation: the list's items start at column \(indent + 1)")
            }
            if byte() == UInt8(ascii: "-"), isBlank(byte(1)) { continue }
            if compact { break }
            throw error("expected '-' for the list's next item, got \(describeHere())")
        }
        return YAMLNode(content: .sequence(items), line: startLine, column: indent + 1)
    }

    private mutating func blockMapping(indent: Int, firstKey: String, keyLine firstKeyLine: Int)
        throws(YAMLSyntaxError) -> YAMLNode
    {
        var entries: [YAMLEntry] = []
        var keyLines: [String: Int] = [:]
        var key = firstKey
        var keyLine = firstKeyLine
        while true {
            i += 1 // the ':'
            if let first = keyLines[key] {
                throw YAMLSyntaxError(line: keyLine, column: indent + 1,
                                      message: "duplicate key \"\(key)\" (first at line \(first))")
            }
            keyLines[key] = keyLine
            entries.append(YAMLEntry(key: key, value: try mappingValue(keyIndent: indent, keyLine: keyLine)))
            guard try skipToContent(), !atMarker(UInt8(ascii: "-")), !atMarker(UInt8(ascii: ".")), column >= indent
            else { break }
            if column > indent {
                throw error("unexpected indentation: this mapping's keys start at column \(indent + 1)")
            }
            if byte() == UInt8(ascii: "-"), isBlank(byte(1)) {
                throw error("expected a key of the mapping, got a list item")
            }
            if byte() == UInt8(ascii: "?"), isBlank(byte(1)) {
                throw error("complex mapping keys ('?') are not supported")
            }
            keyLine = line
            if byte() == UInt8(ascii: "&") || byte() == UInt8(ascii: "!") || byte() == UInt8(ascii: "*") {
                throw error("anchors, tags and aliases on keys are not supported")
            }
            if byte() == UInt8(ascii: "[") || byte() == UInt8(ascii: "{") {
                throw error("a list or mapping cannot be a mapping's key")
            }
            (key, _) = try scalarOnLine(flow: false)
            skipInlineSpace()
            guard byte() == UInt8(ascii: ":"), isBlank(byte(1)) else {
                throw error("expected ':' after the key \"\(key)\", got \(describeHere())")
            }
        }
        return YAMLNode(content: .mapping(entries), line: firstKeyLine, column: indent + 1)
    }

    private mutating func mappingValue(keyIndent: Int, keyLine: Int) throws(YAMLSyntaxError) -> YAMLNode {
        skipInlineSpace()
        let valueColumn = column
        if atEnd || byte() == 0x0A || byte() == UInt8(ascii: "#") {
            skipComment()
            let nullValue = YAMLNode(content: .scalar("", plain: true), line: keyLine, column: valueColumn + 1)
            guard try skipToContent(), !atMarker(UInt8(ascii: "-")), !atMarker(UInt8(ascii: ".")) else {
                return nullValue
            }
            if column > keyIndent { return try block(parentIndent: keyIndent, collectionsAllowed: true) }
            if column == keyIndent, byte() == UInt8(ascii: "-"), isBlank(byte(1)) {
                depth += 1
                defer { depth -= 1 }
                guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
                return try blockSequence(indent: keyIndent, compact: true)
            }
            return nullValue
        }
        let value = try block(parentIndent: keyIndent, collectionsAllowed: false)
        if !atIndentation { try expectEndOfLine(after: "the value of a key") }
        return value
    }

    // MARK: Properties and aliases

    /// An anchor (`&name`) and a tag (`!!str`, `!local`, `!<verbatim>`) in either order. The tag's part is
    /// nil without a tag, true for `!!str` (the scalar stays text), false for any other tag.
    /// A property ends at a blank, or in brackets (`flow`) also at `,`, `]` or `}`.
    private mutating func properties(flow: Bool) throws(YAMLSyntaxError) -> (anchor: String?, keepsText: Bool?) {
        var anchor: String?
        var keepsText: Bool?
        while let b = byte(), b == UInt8(ascii: "&") || b == UInt8(ascii: "!") {
            if b == UInt8(ascii: "&") {
                guard anchor == nil else { throw error("two anchors on one node") }
                i += 1
                let name = name()
                guard !name.isEmpty else { throw error("an anchor needs a name after '&'") }
                try endOfProperty(flow: flow, "the anchor &\(name)")
                anchor = name
            } else {
                guard keepsText == nil else { throw error("two tags on one node") }
                let start = i
                if byte(1) == UInt8(ascii: "<") {
                    while let c = byte(), c != UInt8(ascii: ">"), c != 0x0A { i += 1 }
                    guard byte() == UInt8(ascii: ">"), i > start + 2 else { throw error("a verbatim tag '!<...>' is not closed or empty") }
                    i += 1
                } else {
                    // YAML 1.2's tag characters leave out the flow indicators, in brackets or not.
                    while !isBlank(byte()), !isFlowIndicator(byte()) { i += 1 }
                }
                let tag = String(decoding: bytes[start..<i], as: UTF8.self)
                try endOfProperty(flow: flow, "the tag \(tag)")
                keepsText = tag == "!!str" || tag == "!<tag:yaml.org,2002:str>"
            }
            skipInlineSpace()
        }
        return (anchor, keepsText)
    }

    /// What may follow an anchor or a tag: a blank, or in brackets the end of the node.
    private func endOfProperty(flow: Bool, _ what: String) throws(YAMLSyntaxError) {
        guard isBlank(byte()) || (flow && [UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte()!))
        else { throw error("expected a space after \(what)") }
    }

    /// An anchor's or alias's name: up to a blank or a flow indicator.
    private mutating func name() -> String {
        let start = i
        while !isBlank(byte()), !isFlowIndicator(byte()) { i += 1 }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func alias() throws(YAMLSyntaxError) -> YAMLNode {
        let startLine = line, startColumn = column
        i += 1 // the '*'
        let name = name()
        guard var node = anchors[name] else {
            throw YAMLSyntaxError(line: startLine, column: startColumn + 1,
                                  message: "alias *\(name) names no anchor before it")
        }
        copied += node.size
        guard copied <= Self.maximumAliasCopies else {
            throw YAMLSyntaxError(line: startLine, column: startColumn + 1,
                                  message: "aliases copy more than \(Self.maximumAliasCopies) nodes")
        }
        node.line = startLine
        node.column = startColumn + 1
        return node
    }

    // MARK: Scalars

    /// A quoted scalar, or a plain one up to the end of its line (or in flow context up to an indicator).
    /// Returns its text and whether it was plain.
    private mutating func scalarOnLine(flow: Bool) throws(YAMLSyntaxError) -> (String, Bool) {
        if byte() == UInt8(ascii: "'") || byte() == UInt8(ascii: "\"") { return (try quoted(), false) }
        return (try plainOnLine(flow: flow), true)
    }

    /// `continuing`: a continuation line of a plain scalar, whose first character may be an indicator.
    private mutating func plainOnLine(flow: Bool, continuing: Bool = false) throws(YAMLSyntaxError) -> String {
        guard let first = byte() else { throw error("expected a value") }
        let indicators: [UInt8] = Array("#&*!|>'\"%@`,[]{}".utf8)
        let blockIndicators: [UInt8] = Array("-?:".utf8)
        if !continuing, indicators.contains(first)
            || (blockIndicators.contains(first) && (isBlank(byte(1)) || (flow && isFlowIndicator(byte(1)))))
        {
            throw error("a plain value cannot start with \(describeHere())")
        }
        let start = i
        var end = i
        while let b = byte(), b != 0x0A {
            if b == UInt8(ascii: ":"), isBlank(byte(1)) || (flow && isFlowIndicator(byte(1))) { break }
            if b == UInt8(ascii: "#"), i > start, bytes[i - 1] == UInt8(ascii: " ") || bytes[i - 1] == 9 { break }
            if flow, isFlowIndicator(b) { break }
            i += 1
            if b != UInt8(ascii: " "), b != UInt8(ascii: "\t") { end = i }
        }
        i = end
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The lines that continue a plain scalar: more indented than its parent, folded (a line break is a space,
    /// each empty line a line break). A comment line or a line at the parent's indentation ends it.
    private mutating func plainContinuation(_ first: String, parentIndent: Int) throws(YAMLSyntaxError) -> String {
        var text = first
        while true {
            let saved = (i, line, lineStart)
            skipInlineSpace()
            guard byte() == 0x0A else {
                (i, line, lineStart) = saved
                return text
            }
            var breaks = 0
            var continued = false
            while byte() == 0x0A {
                advance()
                breaks += 1
                while byte() == UInt8(ascii: " ") { i += 1 }
                if byte() == UInt8(ascii: "\t") { skipInlineSpace() }
                guard let b = byte(), b != 0x0A else { continue }
                if column > parentIndent, b != UInt8(ascii: "#"), !atMarker(UInt8(ascii: "-")), !atMarker(UInt8(ascii: ".")),
                   !(b == UInt8(ascii: ":") && isBlank(byte(1)))
                {
                    continued = true
                }
                break
            }
            guard continued else {
                (i, line, lineStart) = saved
                return text
            }
            if bytes[lineStart..<i].contains(9) { throw error("a tab indents this line; YAML indents with spaces") }
            text += breaks == 1 ? " " : String(repeating: "\n", count: breaks - 1)
            text += try plainOnLine(flow: false, continuing: true)
        }
    }

    /// A single- or double-quoted scalar: `''` is a quote in the first, backslash escapes work in the second,
    /// and line breaks fold in both.
    private mutating func quoted() throws(YAMLSyntaxError) -> String {
        let quote = bytes[i]
        let openLine = line, openColumn = column
        i += 1
        var out: [UInt8] = []
        while let b = byte() {
            if b == quote {
                if quote == UInt8(ascii: "'"), byte(1) == quote {
                    out.append(b)
                    i += 2
                    continue
                }
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b == 0x0A {
                fold(&out)
            } else if b == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                try escape(&out)
            } else {
                out.append(b)
                i += 1
            }
        }
        throw YAMLSyntaxError(line: openLine, column: openColumn + 1, message: "a quoted value is not closed")
    }

    /// A line break inside quotes: trailing blanks dropped, the break a space, each empty line after it a break.
    private mutating func fold(_ out: inout [UInt8]) {
        while let last = out.last, last == UInt8(ascii: " ") || last == 9 { out.removeLast() }
        var breaks = 0
        while byte() == 0x0A {
            advance()
            breaks += 1
            skipInlineSpace()
        }
        if breaks == 1 { out.append(UInt8(ascii: " ")) } else { out += repeatElement(0x0A, count: breaks - 1) }
    }

    private mutating func escape(_ out: inout [UInt8]) throws(YAMLSyntaxError) {
        i += 1 // the '\'
        guard let e = byte() else { throw error("a quoted value is not closed") }
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "0"): 0, UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9, 9: 9,
            UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11, UInt8(ascii: "f"): 12, UInt8(ascii: "r"): 13,
            UInt8(ascii: "e"): 27, UInt8(ascii: " "): 32, UInt8(ascii: "\""): 34, UInt8(ascii: "/"): 47,
            UInt8(ascii: "\\"): 92,
        ]
        if let plain = simple[e] {
            out.append(plain)
            i += 1
            return
        }
        if e == 0x0A {
            // An escaped line break: the lines join without a space.
            advance()
            skipInlineSpace()
            return
        }
        let digits: Int
        switch e {
        case UInt8(ascii: "x"): digits = 2
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        case UInt8(ascii: "N"): out += [0xC2, 0x85]; i += 1; return
        case UInt8(ascii: "_"): out += [0xC2, 0xA0]; i += 1; return
        case UInt8(ascii: "L"): out += [0xE2, 0x80, 0xA8]; i += 1; return
        case UInt8(ascii: "P"): out += [0xE2, 0x80, 0xA9]; i += 1; return
        default: throw error("unknown escape \\\(String(decoding: [e], as: UTF8.self))")
        }
        i += 1
        guard i + digits <= bytes.count,
              let value = UInt32(String(decoding: bytes[i..<i + digits], as: UTF8.self), radix: 16),
              let scalar = Unicode.Scalar(value)
        else { throw error("expected \(digits) hexadecimal digits of a character after the escape") }
        out += Array(String(Character(scalar)).utf8)
        i += digits
    }

    /// A literal (`|`) or folded (`>`) block scalar: its header, then the lines indented more than the parent.
    private mutating func blockScalar(parentIndent: Int) throws(YAMLSyntaxError) -> String {
        let folded = byte() == UInt8(ascii: ">")
        i += 1
        var chomp: UInt8?
        var indicated: Int?
        for _ in 0..<2 {
            if let b = byte(), b == UInt8(ascii: "-") || b == UInt8(ascii: "+"), chomp == nil {
                chomp = b
                i += 1
            } else if let b = byte(), (49...57).contains(b), indicated == nil {
                indicated = Int(b - 48)
                i += 1
            }
        }
        try expectEndOfLine(after: "a block scalar's header")
        // The lines: each with its indentation, empty ones included.
        var contentIndent = indicated.map { max(parentIndent, 0) + $0 }
        var lines: [[UInt8]] = []
        var trailingBreaks = 0
        var lastContentEnd: Int?
        while byte() == 0x0A {
            let saved = (i, line, lineStart)
            advance()
            var spaces = 0
            while byte() == UInt8(ascii: " ") { i += 1; spaces += 1 }
            if atEnd { break } // spaces after the text's last line break: no line
            if byte() == 0x0A {
                lines.append([])
                continue
            }
            if contentIndent == nil {
                guard spaces > parentIndent else {
                    (i, line, lineStart) = saved
                    break
                }
                if byte() == UInt8(ascii: "\t") { throw error("a tab indents this line; YAML indents with spaces") }
                contentIndent = spaces
            }
            guard let indent = contentIndent, spaces >= indent else {
                (i, line, lineStart) = saved
                break
            }
            let start = lineStart + indent
            while let b = byte(), b != 0x0A { i += 1 }
            lines.append(Array(bytes[start..<i]))
            lastContentEnd = i
        }
        // Whether the last line of text ends with a line break (not at the end of the file).
        let broken = lastContentEnd.map { $0 < bytes.count } ?? false
        // Empty lines at the end belong to the chomping; the last break before the next node is not the text's.
        while let last = lines.last, last.isEmpty {
            lines.removeLast()
            trailingBreaks += 1
        }
        var out: [UInt8] = []
        var previousNormal = false
        var pendingBreaks = 0
        var wroteContent = false
        for content in lines {
            if content.isEmpty {
                pendingBreaks += 1
                continue
            }
            let moreIndented = content.first == UInt8(ascii: " ") || content.first == 9
            if wroteContent {
                if folded && previousNormal && !moreIndented {
                    out += pendingBreaks == 0 ? [UInt8(ascii: " ")] : Array(repeating: 0x0A, count: pendingBreaks)
                } else {
                    out += Array(repeating: 0x0A, count: pendingBreaks + 1)
                }
            } else {
                out += Array(repeating: 0x0A, count: pendingBreaks)
            }
            out += content
            wroteContent = true
            previousNormal = !moreIndented
            pendingBreaks = 0
        }
        if !lines.isEmpty {
            switch chomp {
            case UInt8(ascii: "-"): break
            case UInt8(ascii: "+"): out += Array(repeating: 0x0A, count: (broken ? 1 : 0) + trailingBreaks)
            default: if broken { out.append(0x0A) }
            }
        } else if chomp == UInt8(ascii: "+") {
            out += Array(repeating: 0x0A, count: trailingBreaks)
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Flow context

    /// Blanks, line breaks and comments inside brackets.
    private mutating func skipFlowSpace() {
        while let b = byte() {
            if b == UInt8(ascii: " ") || b == 9 {
                i += 1
            } else if b == 0x0A {
                advance()
            } else if b == UInt8(ascii: "#"), i == lineStart || bytes[i - 1] == UInt8(ascii: " ") || bytes[i - 1] == 9 {
                skipComment()
            } else {
                return
            }
        }
    }

    private mutating func flowCollection() throws(YAMLSyntaxError) -> YAMLNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        let openLine = line, openColumn = column
        let isList = byte() == UInt8(ascii: "[")
        let close = isList ? UInt8(ascii: "]") : UInt8(ascii: "}")
        let what = isList ? "list" : "mapping"
        func notClosed() -> YAMLSyntaxError {
            YAMLSyntaxError(line: openLine, column: openColumn + 1,
                            message: "the \(what) opened here is not closed with '\(isList ? "]" : "}")'")
        }
        i += 1
        var items: [YAMLNode] = []
        var entries: [YAMLEntry] = []
        var keyLines: [String: Int] = [:]
        while true {
            skipFlowSpace()
            guard let b = byte() else { throw notClosed() }
            if b == close {
                i += 1
                break
            }
            let itemLine = line, itemColumn = column
            if isList {
                let item = try flowNode()
                skipFlowSpace()
                if byte() == UInt8(ascii: ":") {
                    // `[a: 1]`: a mapping of one pair.
                    guard case .scalar(let key, _) = item.content else {
                        throw error("a list or mapping cannot be a mapping's key")
                    }
                    i += 1
                    skipFlowSpace()
                    let value = byte() == UInt8(ascii: ",") || byte() == close
                        ? YAMLNode(content: .scalar("", plain: true), line: line, column: column + 1)
                        : try flowNode()
                    items.append(YAMLNode(content: .mapping([YAMLEntry(key: key, value: value)]), line: itemLine,
                                          column: itemColumn + 1))
                } else {
                    items.append(item)
                }
            } else {
                if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
                    throw error("a list or mapping cannot be a mapping's key")
                }
                if b == UInt8(ascii: "?"), isBlank(byte(1)) { throw error("complex mapping keys ('?') are not supported") }
                let (key, _) = try scalarOnLine(flow: true)
                skipFlowSpace()
                var value = YAMLNode(content: .scalar("", plain: true), line: line, column: column + 1)
                if byte() == UInt8(ascii: ":") {
                    i += 1
                    skipFlowSpace()
                    if byte() != UInt8(ascii: ","), byte() != close { value = try flowNode() }
                }
                if let first = keyLines[key] {
                    throw YAMLSyntaxError(line: itemLine, column: itemColumn + 1,
                                          message: "duplicate key \"\(key)\" (first at line \(first))")
                }
                keyLines[key] = itemLine
                entries.append(YAMLEntry(key: key, value: value))
            }
            skipFlowSpace()
            guard let next = byte() else { throw notClosed() }
            if next == UInt8(ascii: ",") {
                i += 1
            } else if next != close {
                throw error("expected ',' or '\(isList ? "]" : "}")' in the \(what) opened at line \(openLine), got \(describeHere())")
            }
        }
        return YAMLNode(content: isList ? .sequence(items) : .mapping(entries), line: openLine, column: openColumn + 1)
    }

    private mutating func flowNode() throws(YAMLSyntaxError) -> YAMLNode {
        let startLine = line, startColumn = column
        let (anchor, keepsText) = try properties(flow: true)
        skipFlowSpace()
        var node: YAMLNode
        switch byte() {
        case nil: throw error("expected a value")
        case UInt8(ascii: "*"): node = try alias()
        case UInt8(ascii: "["), UInt8(ascii: "{"): node = try flowCollection()
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
            guard anchor != nil || keepsText != nil else { throw error("expected a value, got \(describeHere())") }
            node = YAMLNode(content: .scalar("", plain: true), line: startLine, column: startColumn + 1)
        default:
            var (text, plain) = try scalarOnLine(flow: true)
            if plain {
                // A plain value in brackets may go on over line breaks, each a space.
                while true {
                    let saved = (i, line, lineStart)
                    skipInlineSpace()
                    guard byte() == 0x0A else { (i, line, lineStart) = saved; break }
                    skipFlowSpace()
                    guard let b = byte(), !isFlowIndicator(b), b != UInt8(ascii: ":"), b != UInt8(ascii: "#") else {
                        (i, line, lineStart) = saved
                        break
                    }
                    text += " " + (try plainOnLine(flow: true))
                }
            }
            node = YAMLNode(content: .scalar(text, plain: plain && keepsText != true), line: startLine,
                            column: startColumn + 1)
        }
        if let anchor { anchors[anchor] = node }
        return node
    }
}
