import CExpat

/// What an `XMLReader` hands on as it reads: elements by their local name (a prefix such as `gpx:` dropped, as a
/// namespace-aware parser reports them), with the line and column each tag starts at, and the text between tags.
protocol XMLContentHandler: AnyObject {
    /// An element opens; `attributes` are by local name, without the `xmlns` declarations.
    func startElement(_ name: String, attributes: [String: String], at position: XMLReader.Position)
        throws(XMLReader.Failure)
    /// An element closes (also right after `startElement` for `<name/>`).
    func endElement(_ name: String, at position: XMLReader.Position) throws(XMLReader.Failure)
    /// Character data, entities and CDATA sections decoded; may come in several pieces within one element.
    func characters(_ text: String)
}

/// Reads one XML document with expat, the one place BlueDot holds an `XML_Parser`: it creates the parser with
/// namespace processing, hands each event to a handler, and frees it. expat checks that the document is well
/// formed (UTF-8, UTF-16, ISO-8859-1 or US-ASCII) and stops at the first problem with its line and column; a
/// handler's own error stops it the same way. A document type declaration is read, but one that declares an
/// entity is refused: BlueDot has no use for them, and expanding them is how small files become large ones.
/// No external entity is ever loaded.
enum XMLReader {
    /// A 1-based line and column (in characters).
    struct Position: Sendable, Hashable {
        var line: Int
        var column: Int
    }

    /// Why the document could not be read, where.
    struct Failure: Error {
        var position: Position
        var message: String
    }

    /// The separator expat puts between a namespace and a local name: a character no XML name holds.
    private static let separator = CChar(bitPattern: 0x7C)  // "|"

    /// What the callbacks reach through expat's user data.
    private final class Context {
        let parser: OpaquePointer
        let handler: any XMLContentHandler
        var failure: Failure?

        init(parser: OpaquePointer, handler: any XMLContentHandler) {
            self.parser = parser
            self.handler = handler
        }

        var position: Position {
            Position(line: Int(XML_GetCurrentLineNumber(parser)), column: Int(XML_GetCurrentColumnNumber(parser)) + 1)
        }

        /// Stops expat with the handler's error; `read` throws it once `XML_Parse` returns.
        func stop(_ failure: Failure) {
            guard self.failure == nil else { return }
            self.failure = failure
            XML_StopParser(parser, XML_Bool(0))  // not resumable
        }

        static func from(_ userData: UnsafeMutableRawPointer?) -> Context {
            Unmanaged<Context>.fromOpaque(userData!).takeUnretainedValue()
        }
    }

    /// Reads `bytes` as one document, handing its content to `handler`.
    static func read(_ bytes: [UInt8], into handler: some XMLContentHandler) throws(Failure) {
        guard bytes.count <= Int(Int32.max) else {
            throw Failure(position: Position(line: 1, column: 1), message: "a file over 2 GiB is not read")
        }
        guard let parser = XML_ParserCreateNS(nil, separator) else {
            throw Failure(position: Position(line: 1, column: 1), message: "expat could not start (out of memory)")
        }
        defer { XML_ParserFree(parser) }
        let context = Context(parser: parser, handler: handler)
        let retained = Unmanaged.passRetained(context)
        defer { retained.release() }
        XML_SetUserData(parser, retained.toOpaque())
        XML_SetElementHandler(parser, { userData, name, attributes in
            let context = Context.from(userData)
            guard context.failure == nil, let name else { return }
            var values: [String: String] = [:]
            var k = 0
            while let key = attributes?[k], let value = attributes?[k + 1] {
                values[XMLReader.localName(key)] = String(cString: value)
                k += 2
            }
            do throws(Failure) {
                try context.handler.startElement(XMLReader.localName(name), attributes: values, at: context.position)
            } catch {
                context.stop(error)
            }
        }, { userData, name in
            let context = Context.from(userData)
            guard context.failure == nil, let name else { return }
            do throws(Failure) {
                try context.handler.endElement(XMLReader.localName(name), at: context.position)
            } catch {
                context.stop(error)
            }
        })
        XML_SetCharacterDataHandler(parser) { userData, text, length in
            let context = Context.from(userData)
            guard context.failure == nil, let text else { return }
            let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
            context.handler.characters(String(decoding: bytes, as: UTF8.self))
        }
        XML_SetEntityDeclHandler(parser) { userData, _, _, _, _, _, _, _, _ in
            let context = Context.from(userData)
            context.stop(Failure(position: context.position,
                                 message: "malformed XML: the document type declares an entity: not read"))
        }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32($0.count), 1) }
        }
        if let failure = context.failure { throw failure }
        guard status == XML_STATUS_OK else {
            let code = XML_GetErrorCode(parser)
            let message = XML_ErrorString(code).map { String(cString: $0) } ?? "expat error \(code.rawValue)"
            throw Failure(position: context.position, message: "malformed XML: \(message)")
        }
    }

    /// The name after its namespace (expat's `uri|local`): `trkpt`. Attributes without a prefix have no namespace.
    private static func localName(_ name: UnsafePointer<CChar>) -> String {
        let full = String(cString: name)
        guard let bar = full.lastIndex(of: "|") else { return full }
        return String(full[full.index(after: bar)...])
    }
}
