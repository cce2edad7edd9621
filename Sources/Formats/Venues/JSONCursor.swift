import JSON
import Positioning

/// A JSON value together with its path in the document, for validation messages that say where.
struct JSONCursor {
    /// The value.
    let value: JSONValue
    /// Its path, e.g. `anchors[3].x` (empty for the document itself).
    let path: String
    /// The file's name, for errors.
    let file: String

    /// An error about this value.
    func error(_ message: String) -> VenueError {
        VenueError(file: file, path: path.isEmpty ? "(top level)" : path, message: message)
    }

    /// The path of a member.
    private func memberPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The members of an object.
    func members() throws(VenueError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw error("expected an object, got \(value.kindName)") }
        return members
    }

    /// A member that must be present (and not null).
    func required(_ key: String) throws(VenueError) -> JSONCursor {
        guard let member = try optional(key) else {
            throw VenueError(file: file, path: memberPath(key), message: "missing")
        }
        return member
    }

    /// A member that may be absent; `null` counts as absent.
    func optional(_ key: String) throws(VenueError) -> JSONCursor? {
        guard let member = try members()[key], member != .null else { return nil }
        return JSONCursor(value: member, path: memberPath(key), file: file)
    }

    /// The elements of an array.
    func elements() throws(VenueError) -> [JSONCursor] {
        guard case .array(let elements) = value else { throw error("expected an array, got \(value.kindName)") }
        return elements.enumerated().map { JSONCursor(value: $1, path: "\(path)[\($0)]", file: file) }
    }

    /// A finite number.
    func number() throws(VenueError) -> Double {
        guard case .number(let x) = value else { throw error("expected a number, got \(value.kindName)") }
        guard x.isFinite else { throw error("expected a finite number, got \(x)") }
        return x
    }

    /// A finite number greater than zero.
    func positiveNumber() throws(VenueError) -> Double {
        let x = try number()
        guard x > 0 else { throw error("expected a number greater than 0, got \(x)") }
        return x
    }

    /// A finite number within a closed range.
    func number(in range: ClosedRange<Double>) throws(VenueError) -> Double {
        let x = try number()
        guard range.contains(x) else {
            throw error("expected a number from \(range.lowerBound) to \(range.upperBound), got \(x)")
        }
        return x
    }

    /// Whole numbers a venue file holds are below this in magnitude (so that they are exact as JSON numbers).
    static let integerMagnitudeLimit = 1e15

    /// A whole number that fits an `Int`.
    func integer() throws(VenueError) -> Int {
        guard case .number(let x) = value, x.isFinite, x == x.rounded(), abs(x) < Self.integerMagnitudeLimit else {
            throw error("expected an integer, got \(value.kindName == "a number" ? "\(value.numberText)" : value.kindName)")
        }
        return Int(x)
    }

    /// A string; `nonEmpty` rejects "".
    func string(nonEmpty: Bool = false) throws(VenueError) -> String {
        guard case .string(let s) = value else { throw error("expected a string, got \(value.kindName)") }
        guard !nonEmpty || !s.isEmpty else { throw error("expected a non-empty string") }
        return s
    }

    func bool() throws(VenueError) -> Bool {
        guard case .bool(let b) = value else { throw error("expected true or false, got \(value.kindName)") }
        return b
    }
}

extension JSONValue {
    /// The number as text, for messages.
    fileprivate var numberText: String {
        if case .number(let x) = self { return "\(x)" }
        return kindName
    }
}
