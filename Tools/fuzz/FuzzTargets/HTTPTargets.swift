import Gateway

/// The request parsing the web server does itself: static file paths and the API's query parameters (locations
/// and the history).
enum HTTPTargets {
    /// The first line is a request path, the rest a query string (`a=1&b=2`, split as a server splits it).
    static func request(_ bytes: [UInt8]) {
        let (pathBytes, queryBytes) = split(bytes, at: UInt8(ascii: "\n"))
        let path = String(decoding: pathBytes, as: UTF8.self)
        if let segments = SafePath.segments(path, below: "/") {
            for segment in segments {
                // Scalars, not characters: `\u{6DD}/` is one character that holds a slash.
                check(!segment.isEmpty && segment.unicodeScalars.first != "."
                      && !segment.unicodeScalars.contains { $0.value < 0x20 || $0 == "\\" || $0 == "/" },
                      "an unsafe path segment passed: \(segment.debugDescription)")
            }
        }
        let query = String(decoding: queryBytes, as: UTF8.self)
        let parameters = query.split(separator: "&").map { pair -> (key: Substring, value: Substring) in
            guard let equals = pair.firstIndex(of: "=") else { return (pair[...], ""[...]) }
            return (pair[..<equals], pair[pair.index(after: equals)...])
        }
        if case .success(let q) = LocationQuery.parse(parameters) {
            check(q.target.map { !$0.isEmpty && $0.unicodeScalars.count <= 128 } ?? true, "a bad target passed")
            check(q.floor.map { abs($0) < 1000 } ?? true, "a bad floor passed")
        }
        if case .success(let h) = HistoryRequest.parse(parameters, defaultLimit: 1000, maximumLimit: 10_000,
                                                       newestFirst: true) {
            let q = h.query
            check((1...10_000).contains(q.limit), "a bad limit passed")
            check(q.from.map { $0.isFinite } ?? true, "a bad from passed")
            check(q.to.map { $0.isFinite } ?? true, "a bad to passed")
            if let from = q.from, let to = q.to { check(from <= to, "from after to passed") }
        }
    }
}
