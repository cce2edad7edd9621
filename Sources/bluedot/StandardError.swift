import Foundation

/// Plain messages to standard error, outside the logger (errors the user must see).
enum StandardError {
    static func write(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
