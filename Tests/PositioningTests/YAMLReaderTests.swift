import Foundation
import Testing

@testable import Formats

/// The YAML reader (libyaml's events built into `YAMLNode`s): the forms configuration files use, read as PyYAML
/// (libyaml's pure-Python twin, whose composer builds the tree independently) composes them, and the forms it
/// refuses, with their line and column.
@Suite struct YAMLReaderTests {
    /// A node written compactly: `"text"` for a plain scalar, `'text'` for any other, `[a, b]`, `{k: v, ...}`.
    static func shape(_ node: YAMLNode?) -> String {
        guard let node else { return "none" }
        switch node.content {
        case .scalar(let text, let plain): return plain ? "\"\(text)\"" : "'\(text)'"
        case .sequence(let items): return "[" + items.map { shape($0) }.joined(separator: ", ") + "]"
        case .mapping(let entries):
            return "{" + entries.map { "\($0.key): \(shape($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    static func read(_ text: String) throws -> YAMLNode? { try YAMLReader.document(text) }

    /// Documents BlueDot reads, with what it reads; `diff` says whether PyYAML must compose the same tree (every
    /// case but the tagged one, where PyYAML keeps the tag apart from the style).
    static let documents: [(yaml: String, shape: String, diff: Bool)] = [
        ("a: 1\nb:\n  c: x y  # a comment\n  d:\n", #"{a: "1", b: {c: "x y", d: ""}}"#, true),
        ("key:\n- a\n- b\nnext: ~\n", #"{key: ["a", "b"], next: "~"}"#, true),
        ("nodes:\n  - name: Kitchen\n    point: [1, 2.5, -3]\n  - name: Hall\n    enabled: false\n",
         #"{nodes: [{name: "Kitchen", point: ["1", "2.5", "-3"]}, {name: "Hall", enabled: "false"}]}"#, true),
        ("bounds: [[0, 0, 0], [17, 18, 3]]\nm: {a: 1, b: [x, y], c: }\n",
         #"{bounds: [["0", "0", "0"], ["17", "18", "3"]], m: {a: "1", b: ["x", "y"], c: ""}}"#, true),
        ("points: [\n  [1, 2],  # first\n  [3, 4]\n]\n", #"{points: [["1", "2"], ["3", "4"]]}"#, true),
        ("a: 'it''s'\nb: \"tab\\there \\u00e9\\x41\"\nc: \"one\n  two\n\n  three\"\n",
         "{a: 'it's', b: 'tab\there éA', c: 'one two\nthree'}", true),
        ("key: a\n  b\n\n  c\nnext: d\n", "{key: \"a b\nc\", next: \"d\"}", true),
        ("lit: |\n  x\n   y\n\nfold: >-\n  x\n  y\n\n  z\nkeep: |+\n  k\n\nend: 1\n",
         "{lit: 'x\n y\n', fold: 'x y\nz', keep: 'k\n\n', end: \"1\"}", true),
        ("base: &b [1, 2]\ncopy: *b\nnested: &n\n  x: 1\nagain: *n\n",
         #"{base: ["1", "2"], copy: ["1", "2"], nested: {x: "1"}, again: {x: "1"}}"#, true),
        ("a: !!str 12\nb: !custom x\n", #"{a: '12', b: "x"}"#, false),
        ("%YAML 1.2\n---\na: 1\n...\n", #"{a: "1"}"#, true),
        ("url: http://x#y\ntime: 12:30\nhash: a #b\n", #"{url: "http://x#y", time: "12:30", hash: "a"}"#, true),
        ("a: 1\r\nb:\r\n  - x\r\n", #"{a: "1", b: ["x"]}"#, true),
        ("- - a\n  - b\n- c: d\n  e: f\n", #"[["a", "b"], {c: "d", e: "f"}]"#, true),
        ("\"quoted key\": 1\n'single': 2\n", #"{quoted key: "1", single: "2"}"#, true),
        ("a:\n  - x\n   - y\nb: [1 2, {c d: e}]\n", #"{a: ["x - y"], b: ["1 2", {c d: "e"}]}"#, true),
        ("a: 1\n  - b\n", #"{a: "1 - b"}"#, true),
        ("a: 1\rb: 2\r", #"{a: "1", b: "2"}"#, true),
        ("k: |\n  x", "{k: 'x'}", true),
        ("k: |+\n  x\n", "{k: 'x\n'}", true),
        ("k: >1\n  *", "{k: ' *'}", true),
        ("k: \"\\x01\\u0085\"\n", "{k: '\u{1}\u{85}'}", true),
        ("floors: [\"first\", \"second\"]\n", "{floors: ['first', 'second']}", true),
        ("? a\n: b\n", #"{a: "b"}"#, true),
        ("# nothing but a comment\n", "none", true),
        ("", "none", true),
    ]

    @Test func readsTheFormsConfigurationsUse() throws {
        for (yaml, shape, _) in Self.documents {
            #expect(Self.shape(try Self.read(yaml)) == shape, "yaml:\n\(yaml)")
        }
    }

    @Test func nodesKnowTheirLines() throws {
        let node = try #require(try Self.read("# header\nnodes:\n  - name: K\n    point: [1, 2, 3]\n"))
        let point = try #require(node["nodes"].flatMap { n -> YAMLNode? in
            guard case .sequence(let items) = n.content else { return nil }
            return items.first?["point"]
        })
        #expect(node.line == 2)
        #expect(point.line == 4 && point.column == 12)
    }

    @Test func scalarsReadAsNullBooleanAndNumber() throws {
        let node = try #require(try Self.read(
            "n: ~\ne:\nt: yes\nf: Off\nq: 'true'\ni: 0x1F\no: 0o17\nx: -1.5e3\nd: .5\ninf: -.inf\ns: 1.2.3\nw: twelve\n"))
        #expect(node["n"]?.isNull == true && node["e"]?.isNull == true && node["q"]?.isNull == false)
        #expect(node["t"]?.bool == true && node["f"]?.bool == false && node["q"]?.bool == true)
        #expect(node["i"]?.number == 31 && node["o"]?.number == 15 && node["x"]?.number == -1500 && node["d"]?.number == 0.5)
        #expect(node["inf"]?.number == -.infinity)
        #expect(node["s"]?.number == nil && node["w"]?.number == nil && node["w"]?.bool == nil)
    }

    /// What libyaml refuses, and what the tree builder refuses on top of it, each with its line and column.
    @Test func refusesWithLineAndColumn() {
        let cases: [(String, YAMLSyntaxError)] = [
            // The tree builder's own refusals.
            ("a: 1\nb: 2\na: 3\n", YAMLSyntaxError(line: 3, column: 1, message: "duplicate key \"a\" (first at line 1)")),
            ("m: {a: 1, a: 2}\n", YAMLSyntaxError(line: 1, column: 11, message: "duplicate key \"a\" (first at line 1)")),
            ("? [a]\n: b\n", YAMLSyntaxError(line: 1, column: 3, message: "a list or mapping cannot be a mapping's key")),
            ("{[1]: 2}\n", YAMLSyntaxError(line: 1, column: 2, message: "a list or mapping cannot be a mapping's key")),
            ("a: 1\n---\nb: 2\n", YAMLSyntaxError(line: 2, column: 1, message: "a second document (---): only one is read")),
            ("a: *nothing\n", YAMLSyntaxError(line: 1, column: 4, message: "alias *nothing names no anchor before it")),
            // libyaml's, in its words.
            ("a:\n\tb: 1\n", YAMLSyntaxError(line: 2, column: 1, message: "found character that cannot start any token, while scanning for the next token at line 2, column 1")),
            ("a: b: c\n", YAMLSyntaxError(line: 1, column: 5, message: "mapping values are not allowed in this context")),
            ("m: {c:}\n", YAMLSyntaxError(line: 1, column: 6, message: "found unexpected ':', while scanning a plain scalar at line 1, column 5")),
            ("a: \"open\nb: 1\n", YAMLSyntaxError(line: 3, column: 1, message: "found unexpected end of stream, while scanning a quoted scalar at line 1, column 4")),
            ("a: \"\\q\"\n", YAMLSyntaxError(line: 1, column: 5, message: "found unknown escape character, while parsing a quoted scalar at line 1, column 4")),
            ("a: [1, 2\n", YAMLSyntaxError(line: 2, column: 1, message: "did not find expected ',' or ']', while parsing a flow sequence at line 1, column 4")),
            ("a: [1, 2}\n", YAMLSyntaxError(line: 1, column: 9, message: "did not find expected ',' or ']', while parsing a flow sequence at line 1, column 4")),
            ("%YAML 1.2\na: 1\n", YAMLSyntaxError(line: 2, column: 1, message: "did not find expected <document start>")),
            ("%YAML 2.0\n---\na: 1\n", YAMLSyntaxError(line: 1, column: 1, message: "found incompatible YAML document")),
            ("a:\n  b: 1\n c: 2\n", YAMLSyntaxError(line: 3, column: 2, message: "did not find expected key, while parsing a block mapping at line 1, column 1")),
            // Reader errors: libyaml gives a byte offset, counted here into a line and column.
            ("a: 1\nb: x\u{1}y\n", YAMLSyntaxError(line: 2, column: 5, message: "control characters are not allowed (0x1)")),
            ("a: 1\r\nb: é\u{9F}\n", YAMLSyntaxError(line: 2, column: 5, message: "control characters are not allowed (0x9F)")),
        ]
        for (yaml, expected) in cases {
            #expect(throws: expected, "yaml:\n\(yaml)") { try Self.read(yaml) }
        }
    }

    /// Bytes that are not UTF-8 are refused where they stand (here at the byte that cannot follow 0xC3), not read
    /// as replacement characters.
    @Test func refusesBytesThatAreNotUTF8() {
        let bytes = Array("a: 1\nbé: ".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        #expect(throws: YAMLSyntaxError(line: 2, column: 6, message: "invalid trailing UTF-8 octet (0x28)")) {
            try YAMLReader.document(bytes)
        }
    }

    /// libyaml reads UTF-16 with a byte order mark: the same tree as the UTF-8 text.
    @Test func readsUTF16WithAByteOrderMark() throws {
        let text = "nodes:\n  - name: Küche\n    point: [1, 2, 3]\n"
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(Self.shape(try YAMLReader.document(utf16)) == Self.shape(try Self.read(text)))
        #expect(Self.shape(try Self.read(text)) == #"{nodes: [{name: "Küche", point: ["1", "2", "3"]}]}"#)
    }

    @Test func boundsNestingAndAliasCopies() {
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: YAMLSyntaxError(line: 1, column: 101, message: "nested more than 100 levels deep")) {
            try Self.read(deep)
        }
        let block = (0..<150).map { String(repeating: "  ", count: $0) + "k\($0):" }.joined(separator: "\n") + " x\n"
        #expect(throws: YAMLSyntaxError(line: 101, column: 201, message: "nested more than 100 levels deep")) {
            try Self.read(block)
        }
        // "Billion laughs": each level names the one before ten times.
        var bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...6 {
            bomb += "l\(level): &l\(level) [" + Array(repeating: level == 1 ? "*a" : "*l\(level - 1)", count: 10)
                .joined(separator: ", ") + "]\n"
        }
        #expect(throws: YAMLSyntaxError(line: 5, column: 45, message: "aliases copy more than 100000 nodes")) {
            try Self.read(bomb)
        }
    }

    /// PyYAML (from the project's virtual environment, where schemathesis brings it) composes the same trees:
    /// the same structure, the same scalar text, the same plain or not, for every case and the companion's own
    /// example configuration.
    @Test func composesAsPyYAMLDoes() throws {
        let environment = ProcessInfo.processInfo.environment
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = environment["BLUEDOT_PYTHON"] ?? root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            #expect(environment["BLUEDOT_REQUIRE_INTEGRATION"] != "1", "no Python with PyYAML at \(python)")
            return
        }
        let example = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Fixtures/espresense-companion-config.example.yaml").path, encoding: .utf8)
        // Also every form together in one document (the fuzzer's YAML seed, Tools/fuzz/make-seeds.py).
        let mixed = """
            %YAML 1.2
            ---
            gps: &g {latitude: 38.9, longitude: -77.0, rotation: !!float 10}
            copy: *g
            note: |
              kept
               lines
            folded: >-
              one
              two

              three
            floors:
            - id: 'g'
              name: "Ground \\u00e9"
              bounds: [
                [0, 0, 0],  # low
                [10, 8, 3]
              ]
            nodes:
            - name: plain value
                going on
              point: [1, 2, 1]
              stationary: yes
            ...

            """
        let texts = Self.documents.filter(\.diff).map(\.yaml) + [example, mixed]
        // PyYAML's composer gives nodes with their text and style (None: plain), aliases as the anchored node.
        let script = """
            import json, sys, yaml
            def shape(n):
                if n is None: return "none"
                if isinstance(n, yaml.ScalarNode):
                    return ('"%s"' if n.style is None else "'%s'") % n.value
                if isinstance(n, yaml.SequenceNode):
                    return "[" + ", ".join(shape(i) for i in n.value) + "]"
                return "{" + ", ".join("%s: %s" % (k.value, shape(v)) for k, v in n.value) + "}"
            print(json.dumps([shape(yaml.compose(t)) for t in json.load(sys.stdin)]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: texts))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "PyYAML failed")
        let theirs = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
        #expect(theirs.count == texts.count)
        for (text, shape) in zip(texts, theirs) {
            #expect(Self.shape(try Self.read(text)) == shape, "yaml:\n\(text.prefix(200))")
        }
    }
}
