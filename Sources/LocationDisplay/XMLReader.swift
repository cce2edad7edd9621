/// What an `XMLReader` hands on as it reads: elements by their local name (a prefix such as `gpx:` dropped, as a
/// namespace-aware parser reports them), with the line each tag starts on, and the text between tags.
protocol XMLContentHandler {
    /// An element opens; `attributes` are by local name, without the `xmlns` declarations.
    mutating func startElement(_ name: String, attributes: [String: String], line: Int) throws(XMLReader.Failure)
    /// An element closes (also right after `startElement` for `<name/>`).
    mutating func endElement(_ name: String, line: Int) throws(XMLReader.Failure)
    /// Character data, entities and CDATA sections decoded; may come in several pieces within one element.
    mutating func characters(_ text: String) throws(XMLReader.Failure)
}

/// A small, strict reader of well-formed XML 1.0 in UTF-8: what GPX files are. It checks what makes a document
/// well formed (one root, tags that nest and match, quoted attributes named once, known entities, valid UTF-8)
/// and stops at the first problem with its line. A document type declaration is skipped, but one that declares
/// entities is refused: BlueDot has no use for them, and expanding them is how small files become large ones.
/// No network, no external entities, no other encodings.
///
/// It replaces Foundation's `XMLParser` (libxml2), which a daemon that never reads a GPX file still loaded.
struct XMLReader {
    /// Why the document is not well-formed XML, at which line.
    struct Failure: Error {
        var line: Int
        var message: String
    }

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1

    /// Reads `bytes` as one document, handing its content to `handler`.
    static func read(_ bytes: [UInt8], into handler: inout some XMLContentHandler) throws(Failure) {
        var reader = XMLReader(bytes: bytes)
        try reader.document(&handler)
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Document structure

    private mutating func document(_ handler: inout some XMLContentHandler) throws(Failure) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        if startsWith("<?xml") { try declaration() }
        var sawRoot = false
        while true {
            skipWhitespace()
            guard position < bytes.count else { break }
            guard bytes[position] == UInt8(ascii: "<") else {
                throw fail(sawRoot ? "text after the root element" : "text before the root element")
            }
            if startsWith("<!--") {
                try comment()
            } else if startsWith("<?") {
                try processingInstruction()
            } else if startsWith("<!DOCTYPE") {
                guard !sawRoot else { throw fail("a document type declaration after the root element") }
                try documentType()
            } else {
                guard !sawRoot else { throw fail("a second root element") }
                try element(&handler)
                sawRoot = true
            }
        }
        guard sawRoot else { throw fail("no root element") }
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`: only UTF-8 (or its subset ASCII) is read.
    private mutating func declaration() throws(Failure) {
        let start = position
        try processingInstruction()
        let text = String(decoding: bytes[start..<position], as: UTF8.self).lowercased()
        guard let key = text.firstRange(of: "encoding") else { return }
        let rest = text[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let encoding = rest.prefix { $0 != "\"" && $0 != "'" }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(encoding)) else {
            throw fail("the encoding \(encoding) is not read (only UTF-8)")
        }
    }

    private mutating func element(_ handler: inout some XMLContentHandler) throws(Failure) {
        // The open elements: their names as written and the lines they open on.
        var open: [(name: String, line: Int)] = []
        repeat {
            let tagLine = line
            if startsWith("</") {
                position += 2
                let name = try self.name()
                skipWhitespace()
                try expect(">", "after </\(name)")
                guard let last = open.popLast() else { throw fail("</\(name)> closes nothing") }
                guard last.name == name else {
                    throw fail("</\(name)> closes <\(last.name)> opened at line \(last.line)", at: tagLine)
                }
                try handler.endElement(Self.localName(name), line: tagLine)
            } else if startsWith("<!--") {
                try comment()
            } else if startsWith("<![CDATA[") {
                position += 9
                let start = position
                guard let end = find("]]>") else { throw fail("a CDATA section opened at line \(tagLine) never ends") }
                let text = try utf8(start..<end)
                advance(to: end + 3)
                try handler.characters(text)
            } else if startsWith("<?") {
                try processingInstruction()
            } else if startsWith("<!") {
                throw fail("unexpected markup <! in content")
            } else if bytes[position] == UInt8(ascii: "<") {
                position += 1
                let name = try self.name()
                let attributes = try self.attributes(of: name)
                if startsWith("/>") {
                    position += 2
                    let local = Self.localName(name)
                    try handler.startElement(local, attributes: attributes, line: tagLine)
                    try handler.endElement(local, line: tagLine)
                } else {
                    try expect(">", "to end the start tag <\(name)")
                    open.append((name, tagLine))
                    try handler.startElement(Self.localName(name), attributes: attributes, line: tagLine)
                }
            } else {
                let text = try characterData()
                try handler.characters(text)
            }
            if !open.isEmpty, position >= bytes.count {
                let last = open[open.count - 1]
                throw fail("<\(last.name)> opened at line \(last.line) is never closed")
            }
        } while !open.isEmpty
    }

    /// Attributes up to the end of a start tag, by local name; `xmlns` declarations are left out.
    private mutating func attributes(of element: String) throws(Failure) -> [String: String] {
        var attributes: [String: String] = [:]
        var seen: Set<String> = []
        while true {
            let hadSpace = skipWhitespace()
            guard position < bytes.count else { throw fail("the start tag <\(element)> never ends") }
            if bytes[position] == UInt8(ascii: ">") || startsWith("/>") { return attributes }
            guard hadSpace else { throw fail("no space before an attribute of <\(element)>") }
            let name = try self.name()
            skipWhitespace()
            try expect("=", "after the attribute \(name) of <\(element)>")
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
            else { throw fail("the attribute \(name) of <\(element)> has no quoted value") }
            let quote = bytes[position]
            position += 1
            let value = try decoded(until: quote, what: "the value of \(name)")
            position += 1
            guard seen.insert(name).inserted else { throw fail("<\(element)> has the attribute \(name) twice") }
            if name == "xmlns" || name.hasPrefix("xmlns:") { continue }
            attributes[Self.localName(name)] = value
        }
    }

    /// Text up to the next `<`, entities decoded.
    private mutating func characterData() throws(Failure) -> String {
        try decoded(until: UInt8(ascii: "<"), what: "text")
    }

    /// The bytes up to (not including) `terminator`, with entity and character references replaced. A `<` in an
    /// attribute value is an error, as is running out of document.
    private mutating func decoded(until terminator: UInt8, what: String) throws(Failure) -> String {
        var out: [UInt8] = []
        var start = position
        while position < bytes.count, bytes[position] != terminator {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") { throw fail("a < in \(what)") }
            if byte == UInt8(ascii: "&") {
                out.append(contentsOf: bytes[start..<position])
                try reference(into: &out)
                start = position
                continue
            }
            if byte == 0x0A { line += 1 }
            position += 1
        }
        guard position < bytes.count || terminator == UInt8(ascii: "<") else {
            throw fail("\(what) never ends")
        }
        out.append(contentsOf: bytes[start..<position])
        guard let text = String(validating: out, as: UTF8.self) else { throw fail("\(what) is not valid UTF-8") }
        return text
    }

    /// `&name;` or `&#digits;` / `&#xhex;` at the position, appended as UTF-8.
    private mutating func reference(into out: inout [UInt8]) throws(Failure) {
        let start = position
        guard let semicolon = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw fail("an & that starts no entity (write &amp;)")
        }
        let body = bytes[(start + 1)..<semicolon]
        position = semicolon + 1
        switch String(decoding: body, as: UTF8.self) {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        case let name where name.hasPrefix("#"):
            let hex = name.hasPrefix("#x")
            let digits = name.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty, let value = UInt32(digits, radix: hex ? 16 : 10),
                  let scalar = Unicode.Scalar(value), Self.isXMLCharacter(scalar)
            else { throw fail("&\(name); is not a character XML allows") }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        case let name:
            throw fail("unknown entity &\(name);")
        }
    }

    /// XML 1.0's Char production: tab, newline, carriage return and everything from space on but the
    /// surrogates (which a scalar cannot be) and U+FFFE, U+FFFF.
    private static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    // MARK: Skipped markup

    private mutating func comment() throws(Failure) {
        let opened = line
        position += 4
        guard let end = find("-->") else { throw fail("a comment opened at line \(opened) never ends") }
        advance(to: end + 3)
    }

    private mutating func processingInstruction() throws(Failure) {
        let opened = line
        guard let end = find("?>") else { throw fail("a processing instruction opened at line \(opened) never ends") }
        advance(to: end + 2)
    }

    /// `<!DOCTYPE name ...>` with an optional internal subset in brackets, which may not declare entities.
    private mutating func documentType() throws(Failure) {
        let opened = line
        var depth = 0
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let q = quote {
                if byte == q { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth -= 1
            } else if byte == UInt8(ascii: ">") && depth <= 0 {
                advance(to: position + 1)
                return
            } else if depth > 0 && startsWith("<!ENTITY") {
                throw fail("the document type declares an entity: not read")
            }
            if byte == 0x0A { line += 1 }
            position += 1
        }
        throw fail("the document type declaration opened at line \(opened) never ends")
    }

    // MARK: Small pieces

    /// A tag or attribute name: up to white space or one of `/>=`.
    private mutating func name() throws(Failure) -> String {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="): break
            case UInt8(ascii: "<"), UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"):
                throw fail("a name with \(Character(Unicode.Scalar(bytes[position]))) in it")
            default:
                position += 1
                continue
            }
            break
        }
        guard position > start else { throw fail("a tag or attribute without a name") }
        let first = bytes[start]
        guard !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), first != UInt8(ascii: "-"),
              first != UInt8(ascii: ".")
        else { throw fail("a name that starts with \(Character(Unicode.Scalar(first)))") }
        return try utf8(start..<position)
    }

    /// The name after its prefix: `gpx:trkpt` is `trkpt`.
    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case 0x0A: line += 1
            case 0x20, 0x09, 0x0D: break
            default: return position > start
            }
            position += 1
        }
        return position > start
    }

    private mutating func expect(_ character: Character, _ context: String) throws(Failure) {
        guard position < bytes.count, bytes[position] == character.asciiValue else {
            throw fail("expected \(character) \(context)")
        }
        position += 1
    }

    private func startsWith(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        return text.withUTF8Buffer { prefix in
            var k = 0
            while k < count, bytes[position + k] == prefix[k] { k += 1 }
            return k == count
        }
    }

    /// The start of the next `text` from the position on.
    private func find(_ text: StaticString) -> Int? {
        text.withUTF8Buffer { needle -> Int? in
            guard needle.count <= bytes.count else { return nil }
            var i = position
            while i <= bytes.count - needle.count {
                var k = 0
                while k < needle.count, bytes[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
                i += 1
            }
            return nil
        }
    }

    /// Moves to `end`, counting the lines passed.
    private mutating func advance(to end: Int) {
        for i in position..<end where bytes[i] == 0x0A { line += 1 }
        position = end
    }

    private func utf8(_ range: Range<Int>) throws(Failure) -> String {
        guard let text = String(validating: bytes[range], as: UTF8.self) else { throw fail("bytes that are not UTF-8") }
        return text
    }

    /// A well-formedness problem, at the present line or at `line`.
    private func fail(_ message: String, at line: Int? = nil) -> Failure {
        Failure(line: line ?? self.line, message: "malformed XML: " + message)
    }
}
