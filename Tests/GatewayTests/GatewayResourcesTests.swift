import Foundation
import Testing

@testable import Gateway

/// Where the gateway finds its page, demo data and API document: in order, `$BLUEDOT_RESOURCES`, `share/bluedot`
/// beside the executable's folder (the README's install), the source tree, and the resource folder of installs
/// before that layout.
@Suite struct GatewayResourcesTests {
    @Test func searchOrder() {
        #expect(GatewayResources.folders(given: "/opt/x", executableFolder: "/usr/local/bin", sourceFolder: "/src/Gateway")
            == ["/opt/x", "/usr/local/share/bluedot", "/src/Gateway", "/usr/local/bin/BlueDot_Gateway.resources"])
        #expect(GatewayResources.folders(given: "", executableFolder: nil, sourceFolder: "/src/Gateway") == ["/src/Gateway"])
        #expect(GatewayResources.parent(of: "/bluedot") == "/")
    }

    @Test func theFirstFolderWithTheAPIDocumentWins() throws {
        let scratch = try GatewayProcess.scratch()
        let empty = scratch.appendingPathComponent("empty").path
        let first = scratch.appendingPathComponent("first").path
        let second = scratch.appendingPathComponent("second").path
        for folder in [first, second] {
            try FileManager.default.createDirectory(atPath: folder + "/API", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: folder + "/API/openapi.json", contents: Data("{}".utf8))
        }
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(GatewayResources.firstHolding([empty, first, second]) == first)
        #expect(GatewayResources.firstHolding([empty]) == nil)
        #expect(GatewayResources.missingMessage([empty, "/nowhere"]).contains("in none of: \(empty), /nowhere;"))
    }

    /// The bundled page links its icon, which is beside it (`RouterTests` for how both are served).
    @Test func thePageLinksItsIcon() throws {
        let page = GatewayProcess.packageRoot.appendingPathComponent("Sources/Gateway/Page")
        let html = try String(contentsOf: page.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains(#"<link rel="icon" href="/favicon.svg" type="image/svg+xml">"#))
        let svg = try String(contentsOf: page.appendingPathComponent("favicon.svg"), encoding: .utf8)
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg""#))
    }

    /// A `bluedot` installed as the README says (the binary in `bin/`, the files in `share/bluedot/`) serves the
    /// installed page, not the source tree's.
    @Test func anInstalledBinaryServesTheInstalledPage() async throws {
        let scratch = try GatewayProcess.scratch()
        let bin = scratch.appendingPathComponent("bin")
        let share = scratch.appendingPathComponent("share/bluedot")
        let fm = FileManager.default
        try fm.createDirectory(at: bin, withIntermediateDirectories: true)
        try fm.createDirectory(at: share, withIntermediateDirectories: true)
        try fm.copyItem(atPath: GatewayProcess.bluedot, toPath: bin.appendingPathComponent("bluedot").path)
        let sources = GatewayProcess.packageRoot.appendingPathComponent("Sources/Gateway")
        for folder in ["Page", "Demo", "API"] {
            try fm.copyItem(at: sources.appendingPathComponent(folder), to: share.appendingPathComponent(folder))
        }
        let page = share.appendingPathComponent("Page/index.html")
        let marker = "<!-- installed copy -->"
        try (try String(contentsOf: page, encoding: .utf8) + marker).write(to: page, atomically: true, encoding: .utf8)
        let gateway = try GatewayProcess(bin.appendingPathComponent("bluedot").path,
                                         ["demo", "--listen", "127.0.0.1:0"])
        let base = try #require(await gateway.waitForURL(seconds: 30), "no listening line: \(gateway.standardError)")
        let (status, body) = try await GatewayProcess.get(base)
        #expect(status == 200 && body.contains(marker))
        // Through Hummingbird's FileMiddleware, whose file reading (NIOFileSystem) no in-process test runs without
        // Foundation; `/favicon.ico` redirects to the icon.
        let icon = try await GatewayProcess.get(base + "favicon.ico")
        #expect(icon.0 == 200 && icon.1.contains("<svg"))
        // Read whole by SystemIO's WholeFile: a cast that only held with Foundation loaded once made both 500.
        #expect(try await GatewayProcess.get(base + "api/openapi.json").0 == 200)
        #expect(try await GatewayProcess.get(base + "api/venue/plan/0").0 == 200)
        gateway.signal(SIGTERM)
        #expect(await gateway.wait(seconds: 6))
    }
}
