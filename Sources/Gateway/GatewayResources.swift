import FoundationEssentials
import Glibc

/// The files that come with the gateway: the web page (`Page/`), the demo data (`Demo/`) and the API's OpenAPI
/// document (`API/openapi.json`). They are plain files, found at run time in the first of these folders that
/// holds `API/openapi.json`:
/// 1. `$BLUEDOT_RESOURCES`;
/// 2. `share/bluedot` beside the executable's folder (`/usr/bin/bluedot` → `/usr/share/bluedot`, where the Debian
///    package puts them; `/usr/local/bin` → `/usr/local/share/bluedot` for a copy installed by hand);
/// 3. `Sources/Gateway` of the source tree the executable was built from (`swift run`, the tests);
/// 4. `BlueDot_Gateway.resources` in the executable's folder (where installs before this layout put them).
///
/// They are not a SwiftPM resource bundle: its generated accessor imports Foundation, which would load
/// Foundation and ICU into the daemon (8 MiB resident) for three paths.
public enum GatewayResources {
    /// The folder the files were found in, or nil (`searched` says where it looked).
    public static let root: String? = firstHolding(searched)

    /// The folders looked in, in order.
    public static var searched: [String] {
        folders(given: getenv("BLUEDOT_RESOURCES").map { String(cString: $0) }, executableFolder: executableFolder,
                sourceFolder: parent(of: #filePath))
    }

    /// The search order for a given `$BLUEDOT_RESOURCES`, executable's folder and source folder.
    static func folders(given: String?, executableFolder: String?, sourceFolder: String) -> [String] {
        var folders: [String] = []
        if let given, !given.isEmpty { folders.append(given) }
        if let executableFolder { folders.append(parent(of: executableFolder) + "/share/bluedot") }
        folders.append(sourceFolder)
        if let executableFolder { folders.append(executableFolder + "/BlueDot_Gateway.resources") }
        return folders
    }

    /// The first of `folders` that holds a readable `API/openapi.json`.
    static func firstHolding(_ folders: [String]) -> String? {
        folders.first { access($0 + "/API/openapi.json", R_OK) == 0 }
    }

    /// The web page's folder.
    public static var webRoot: String { (root ?? searched[0]) + "/Page" }
    /// The demo data's folder.
    public static var demoRoot: String { (root ?? searched[0]) + "/Demo" }
    /// The OpenAPI 3.1 document of the HTTP API (`GET /api/openapi.json`).
    public static var openAPIDocument: String { (root ?? searched[0]) + "/API/openapi.json" }

    /// Why the files are missing, for a startup error: every folder looked in.
    public static var missingMessage: String { missingMessage(searched) }

    static func missingMessage(_ folders: [String]) -> String {
        "the gateway's files (Page/, Demo/, API/openapi.json) are in none of: " + folders.joined(separator: ", ")
            + "; install the package (README, \"Install on a gateway\") or set BLUEDOT_RESOURCES"
    }

    /// The folder of the running executable (`/proc/self/exe`).
    private static var executableFolder: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return parent(of: String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// A path without its last component (`/a/b/c` → `/a/b`; `/a` → `/`).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
