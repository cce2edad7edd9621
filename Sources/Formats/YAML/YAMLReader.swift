/// Reads one YAML document into `YAMLNode`s, from libyaml's events (`YAMLEventParser`).
///
/// libyaml does the syntax: block and flow collections, every scalar style, comments, anchors, tags, directives.
/// This builds the tree and refuses, with the line and column, what a configuration should not hold and libyaml
/// leaves to its caller: duplicate keys, a list or mapping as a key, an alias with no anchor before it, a second
/// document, more than 100 levels of nesting, and aliases that would copy more than 100,000 nodes ("billion
/// laughs"). It keeps its own stack, so no input nests it deeper than that.
struct YAMLReader {
    static let maximumDepth = 100
    static let maximumAliasCopies = 100_000

    /// A collection being read: its items, or its entries and the key waiting for its value.
    private struct Open {
        var line: Int, column: Int
        var anchor: String?
        var isMapping: Bool
        var items: [YAMLNode] = []
        var entries: [YAMLEntry] = []
        var key: (text: String, line: Int)?
        var keyLines: [String: Int] = [:]
    }

    private var open: [Open] = []
    private var anchors: [String: YAMLNode] = [:]
    private var copied = 0
    private var root: YAMLNode?

    /// The document in `text`, or nil when it has none (empty, or only comments).
    static func document(_ text: String) throws(YAMLSyntaxError) -> YAMLNode? {
        try document(Array(text.utf8))
    }

    /// The document in `bytes` (UTF-8 or UTF-16), or nil when it has none.
    static func document(_ bytes: [UInt8]) throws(YAMLSyntaxError) -> YAMLNode? {
        let parser = YAMLEventParser(bytes)
        var reader = YAMLReader()
        var documents = 0
        while true {
            let event = try parser.next()
            switch event.kind {
            case .streamStart, .documentEnd: continue
            case .streamEnd: return reader.root
            case .documentStart:
                documents += 1
                guard documents == 1 else { throw event.error("a second document (---): only one is read") }
            case .alias(let name): try reader.add(reader.alias(name, at: event), event)
            case .scalar(let text, let plain, let anchor):
                try reader.add(YAMLNode(content: .scalar(text, plain: plain), line: event.line, column: event.column),
                               event, anchor: anchor)
            case .sequenceStart(let anchor): try reader.push(event, anchor: anchor, isMapping: false)
            case .mappingStart(let anchor): try reader.push(event, anchor: anchor, isMapping: true)
            case .sequenceEnd, .mappingEnd:
                let done = reader.open.removeLast()
                let content: YAMLNode.Content = done.isMapping ? .mapping(done.entries) : .sequence(done.items)
                let node = YAMLNode(content: content, line: done.line, column: done.column)
                try reader.add(node, YAMLEventParser.Event(kind: event.kind, line: done.line, column: done.column),
                               anchor: done.anchor)
            }
        }
    }

    /// A list or mapping opens: not as a key, and not past the depth bound.
    private mutating func push(_ event: YAMLEventParser.Event, anchor: String?, isMapping: Bool) throws(YAMLSyntaxError) {
        if let parent = open.last, parent.isMapping, parent.key == nil {
            throw event.error("a list or mapping cannot be a mapping's key")
        }
        guard open.count < Self.maximumDepth else {
            throw event.error("nested more than \(Self.maximumDepth) levels deep")
        }
        open.append(Open(line: event.line, column: event.column, anchor: anchor, isMapping: isMapping))
    }

    /// A finished node: the root, an item, a key or a key's value.
    private mutating func add(_ node: YAMLNode, _ event: YAMLEventParser.Event, anchor: String? = nil)
        throws(YAMLSyntaxError)
    {
        if let anchor { anchors[anchor] = node }
        guard !open.isEmpty else {
            root = node
            return
        }
        let top = open.count - 1
        guard open[top].isMapping else {
            open[top].items.append(node)
            return
        }
        guard let key = open[top].key else {
            guard case .scalar(let text, _) = node.content else {
                throw event.error("a list or mapping cannot be a mapping's key")
            }
            if let first = open[top].keyLines[text] {
                throw event.error("duplicate key \"\(text)\" (first at line \(first))")
            }
            open[top].keyLines[text] = event.line
            open[top].key = (text, event.line)
            return
        }
        open[top].entries.append(YAMLEntry(key: key.text, value: node))
        open[top].key = nil
    }

    /// The node an alias names, placed where the alias is, counted against the copy bound.
    private mutating func alias(_ name: String, at event: YAMLEventParser.Event) throws(YAMLSyntaxError) -> YAMLNode {
        guard var node = anchors[name] else { throw event.error("alias *\(name) names no anchor before it") }
        copied += node.size
        guard copied <= Self.maximumAliasCopies else {
            throw event.error("aliases copy more than \(Self.maximumAliasCopies) nodes")
        }
        node.line = event.line
        node.column = event.column
        return node
    }
}

extension YAMLEventParser.Event {
    /// An error at this event's line and column.
    func error(_ message: String) -> YAMLSyntaxError {
        YAMLSyntaxError(line: line, column: column, message: message)
    }
}
