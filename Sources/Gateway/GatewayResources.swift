import Foundation

/// The files bundled with the module: the web page and the demo data.
public enum GatewayResources {
    /// The web page's folder.
    public static var webRoot: String { Bundle.module.bundleURL.appendingPathComponent("Page").path }
    /// The demo data's folder.
    public static var demoRoot: String { Bundle.module.bundleURL.appendingPathComponent("Demo").path }
}
