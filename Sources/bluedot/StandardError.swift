import Glibc

/// Plain messages to standard error, outside the logger (errors the user must see).
enum StandardError {
    static func write(_ message: String) {
        FileOutput.writeAll(STDERR_FILENO, message + "\n")
    }
}
