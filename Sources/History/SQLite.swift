import CSQLite

/// What went wrong with the history database: the file, what was being done (the SQL or the step) and SQLite's
/// message.
public struct HistoryError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The database file (`:memory:` for an in-memory history).
    public var path: String
    /// What failed: SQLite's message with the statement or step.
    public var message: String

    /// Creates an error.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// SQLite's transient destructor (`SQLITE_TRANSIENT`): SQLite copies bound text before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection, used by one thread at a time (the store's writer thread, or a reader under a lock).
final class SQLiteConnection {
    let path: String
    private(set) var handle: OpaquePointer?

    /// Opens `filename` (a path or a `file:` URI) read-write, creating it; `path` names it in errors.
    init(filename: String, path: String, readOnly: Bool = false) throws(HistoryError) {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let status = sqlite3_open_v2(filename, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(db)
            throw HistoryError(path: path, message: "cannot open the database: \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    /// Closes the connection (statements must be finalized first); later calls do nothing.
    func close() {
        guard let handle else { return }
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(HistoryError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? lastError
            sqlite3_free(error)
            throw HistoryError(path: path, message: "\(message) (in \(sql.prefix(120)))")
        }
    }

    /// A prepared statement.
    func prepare(_ sql: String) throws(HistoryError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw HistoryError(path: path, message: "\(lastError) (in \(sql.prefix(120)))")
        }
        return SQLiteStatement(statement, connection: self, sql: sql)
    }

    /// The one integer a query such as `PRAGMA page_count` returns.
    func integer(_ sql: String) throws(HistoryError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0) ?? 0
    }

    /// SQLite's message for the last failure.
    var lastError: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the database is closed" }

    /// The rowid of the last insert.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
}

/// A prepared statement: bind by 1-based index, step, read columns by 0-based index; finalized when released.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String

    init(_ statement: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Clears the bindings and rewinds, for the next use.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value { sqlite3_bind_text(statement, index, value, -1, transient) } else { sqlite3_bind_null(statement, index) }
    }

    /// Steps once: true when a row is ready, false when done.
    func step() throws(HistoryError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw HistoryError(path: connection.path, message: "\(connection.lastError) (in \(sql.prefix(120)))")
        }
    }

    /// Steps a statement that returns no rows, then resets it.
    func run() throws(HistoryError) {
        defer { reset() }
        _ = try step()
    }

    func double(_ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }

    func int64(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
    }

    func string(_ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, let text = sqlite3_column_text(statement, column)
        else { return nil }
        return String(cString: text)
    }
}
