/// A YAML node with its path in the document, for import messages that say where (the YAML sibling of
/// `JSONCursor`).
struct YAMLField {
    /// The node.
    let node: YAMLNode
    /// `nodes[3].point`; empty for the document.
    let path: String
    /// The file's name, for errors.
    let file: String

    /// An error about this node, at its line.
    func error(_ message: String) -> ESPresenseConfigError {
        ESPresenseConfigError(file: file, line: node.line, path: path.isEmpty ? "(top level)" : path,
                              message: message)
    }

    /// What the node is, for messages.
    private var kindName: String {
        switch node.content {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let text, _): "\"\(text)\""
        }
    }

    /// The members of a mapping.
    func mapping() throws(ESPresenseConfigError) -> [YAMLEntry] {
        guard case .mapping(let entries) = node.content else { throw error("expected a mapping, got \(kindName)") }
        return entries
    }

    /// A member that may be absent; null counts as absent.
    func optional(_ key: String) throws(ESPresenseConfigError) -> YAMLField? {
        guard let member = try mapping().first(where: { $0.key == key })?.value else { return nil }
        if member.isNull { return nil }
        return YAMLField(node: member, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }

    /// A member that must be present (and not null).
    func required(_ key: String) throws(ESPresenseConfigError) -> YAMLField {
        guard let member = try optional(key) else {
            throw ESPresenseConfigError(file: file, line: node.line, path: path.isEmpty ? key : "\(path).\(key)",
                                        message: "missing")
        }
        return member
    }

    /// The elements of a list.
    func elements() throws(ESPresenseConfigError) -> [YAMLField] {
        guard case .sequence(let items) = node.content else { throw error("expected a list, got \(kindName)") }
        return items.enumerated().map { YAMLField(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    /// A scalar as text (a name may be written as a number).
    func text() throws(ESPresenseConfigError) -> String {
        guard case .scalar(let text, _) = node.content else { throw error("expected text, got \(kindName)") }
        return text
    }

    /// `true` or `false` (YAML's `yes`/`no`/`on`/`off` too).
    func bool() throws(ESPresenseConfigError) -> Bool {
        guard let b = node.bool else { throw error("expected true or false, got \(kindName)") }
        return b
    }

    /// A finite number, optionally within a range.
    func number(in range: ClosedRange<Double> = -.greatestFiniteMagnitude...(.greatestFiniteMagnitude))
        throws(ESPresenseConfigError) -> Double
    {
        guard let x = node.number else { throw error("expected a number, got \(kindName)") }
        guard x.isFinite else { throw error("expected a finite number, got \(kindName)") }
        guard range.contains(x) else {
            throw error("expected a number from \(range.lowerBound) to \(range.upperBound), got \(x)")
        }
        return x
    }

    /// A list of `counts` finite numbers, `shape` naming the expected form in errors (`[x, y, z]`).
    func coordinates(_ shape: String, counts: ClosedRange<Int>) throws(ESPresenseConfigError) -> [Double] {
        guard case .sequence(let items) = node.content, counts.contains(items.count) else { throw error("expected \(shape)") }
        return try elements().map { (c) throws(ESPresenseConfigError) in try c.number() }
    }
}
