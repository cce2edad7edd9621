/// A node of a YAML document as `YAMLReader` builds it from libyaml's events: a scalar, a list or a mapping, with
/// the line and column where it starts (1-based), for messages that say where.
struct YAMLNode: Sendable, Equatable {
    /// What the node holds.
    enum Content: Sendable, Equatable {
        /// Text. `plain` when written without quotes, block style or a `!!str` tag: only a plain scalar can
        /// stand for null (`~`, `null`, nothing), a boolean or a number.
        case scalar(String, plain: Bool)
        /// A list, in order.
        case sequence([YAMLNode])
        /// A mapping with text keys, in document order (keys are unique).
        case mapping([YAMLEntry])
    }

    var content: Content
    /// 1-based line of the node's first character.
    var line: Int
    /// 1-based column (in characters, as libyaml counts) of the node's first character.
    var column: Int

    /// A plain scalar that YAML reads as null: empty, `~`, `null`, `Null` or `NULL`.
    var isNull: Bool {
        guard case .scalar(let text, plain: true) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// The member of a mapping under `key`, or nil (also when this is not a mapping).
    subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries) = content else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// A scalar read as a boolean: `true`/`false` and YAML 1.1's `yes`/`no`/`on`/`off`, in lower case,
    /// capitalised or upper case. Quoted text counts too, as the companion's own reader (YamlDotNet) takes it.
    var bool: Bool? {
        guard case .scalar(let text, _) = content else { return nil }
        switch text {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    /// A scalar read as a number: a decimal integer or fraction with an optional exponent (`12`, `-0.5`, `1e3`,
    /// `.5`), a hexadecimal or octal integer (`0x1F`, `0o17`), or `.inf`/`-.inf`/`.nan` in YAML's spellings.
    /// Quoted text counts too (see `bool`).
    var number: Double? {
        guard case .scalar(let text, _) = content else { return nil }
        return Self.number(text)
    }

    /// How many nodes this one holds, itself included (bounds what aliases may copy).
    var size: Int {
        switch content {
        case .scalar: 1
        case .sequence(let items): items.reduce(1) { $0 + $1.size }
        case .mapping(let entries): entries.reduce(1) { $0 + $1.value.size }
        }
    }

    static func number(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        if bytes.count > 2, bytes.first == UInt8(ascii: "0"),
           let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8][bytes[bytes.index(after: bytes.startIndex)]]
        {
            guard let value = UInt64(String(decoding: bytes.dropFirst(2), as: UTF8.self), radix: radix) else {
                return nil
            }
            return negative ? -Double(value) : Double(value)
        }
        // Digits with at most one point, at least one digit, then an optional exponent with digits.
        var digits = 0
        var points = 0
        var k = bytes.startIndex
        while k != bytes.endIndex {
            let b = bytes[k]
            if (48...57).contains(b) { digits += 1 } else if b == UInt8(ascii: ".") { points += 1 } else { break }
            k = bytes.index(after: k)
        }
        guard digits > 0, points <= 1 else { return nil }
        if k != bytes.endIndex {
            guard bytes[k] == UInt8(ascii: "e") || bytes[k] == UInt8(ascii: "E") else { return nil }
            k = bytes.index(after: k)
            if k != bytes.endIndex, bytes[k] == UInt8(ascii: "-") || bytes[k] == UInt8(ascii: "+") {
                k = bytes.index(after: k)
            }
            guard k != bytes.endIndex else { return nil }
            while k != bytes.endIndex {
                guard (48...57).contains(bytes[k]) else { return nil }
                k = bytes.index(after: k)
            }
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)) else { return nil }
        return negative ? -value : value
    }
}

/// A key of a mapping with its value.
struct YAMLEntry: Sendable, Equatable {
    var key: String
    var value: YAMLNode
}

/// Why a YAML document could not be read: the line and column (1-based) and what is wrong there.
struct YAMLSyntaxError: Error, Equatable {
    var line: Int
    var column: Int
    var message: String
}
