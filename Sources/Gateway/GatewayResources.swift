import Foundation

/// The files bundled with the module: the web page, the demo data and the API's OpenAPI document.
public enum GatewayResources {
    /// The web page's folder.
    public static var webRoot: String { Bundle.module.bundleURL.appendingPathComponent("Page").path }
    /// The demo data's folder.
    public static var demoRoot: String { Bundle.module.bundleURL.appendingPathComponent("Demo").path }
    /// The OpenAPI 3.1 document of the HTTP API (`GET /api/openapi.json`).
    public static var openAPIDocument: String {
        Bundle.module.bundleURL.appendingPathComponent("API/openapi.json").path
    }
}
