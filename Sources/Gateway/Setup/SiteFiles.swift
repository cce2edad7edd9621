import BlueDotCore
import Devices
import Formats
import FoundationEssentials
import Logging
import Positioning

/// The venue and the device registry a gateway runs with: read at start, replaced while it runs (the set-up
/// page's `PUT /api/venue` and `PUT /api/devices`, or `SIGHUP`, which reads both files again), and written to disk
/// atomically with the previous version kept beside each (`<file>.previous`).
///
/// Every new venue or registry is checked by the loader start-up uses (`VenueLoader`, `DeviceRegistryFile`); one
/// that fails changes nothing and its error names the field. One that loads is handed to `onChange`, which the
/// daemon sets to give it to every part that holds it (`GatewayApp`): the engine from its next fix, the presence
/// rule, the rooms, the device identifier, the site's receivers, Home Assistant, the map's documents.
public final class SiteFiles: Sendable {
    /// What changed.
    public enum Change: Sendable {
        /// A new venue.
        case venue(Venue)
        /// A new device registry.
        case registry(DeviceRegistry)
    }

    /// Why a save or a reload was refused.
    public enum Refusal: Error, Sendable, CustomStringConvertible {
        /// The text did not load: the loader's message and the JSON path it names (empty when none).
        case invalid(message: String, field: String)
        /// The file could not be written, or read on a reload.
        case io(String)
        /// There is no file to save to (`devices` not configured).
        case noFile(String)

        public var description: String {
            switch self {
            case .invalid(let message, _), .io(let message), .noFile(let message): message
            }
        }
    }

    private struct State {
        var venue: Venue
        /// Whether the venue came from its file (false on a fresh install, until one is saved).
        var venueLoaded: Bool
        var registry: DeviceRegistry
        var revision = 0
    }

    /// The venue file.
    public let venuePath: String?
    /// The registry file (`devices`), when configured.
    public let devicesPath: String?
    private let state: LockedValue<State>
    private let handlers = LockedValue<[@Sendable (Change) -> Void]>([])
    private let logger: Logger

    /// Files in use: `venue` and `registry` as read at start; `venueLoaded` false when the venue file did not exist
    /// yet (an editable gateway's first run).
    public init(venuePath: String?, venue: Venue, venueLoaded: Bool, devicesPath: String?, registry: DeviceRegistry,
                logger: Logger) {
        self.venuePath = venuePath
        self.devicesPath = devicesPath
        self.logger = logger
        state = LockedValue(State(venue: venue, venueLoaded: venueLoaded, registry: registry))
    }

    /// The venue in use.
    public var venue: Venue { state.withLock { $0.venue } }
    /// Whether a venue file has been read or saved.
    public var venueLoaded: Bool { state.withLock { $0.venueLoaded } }
    /// The registry in use.
    public var registry: DeviceRegistry { state.withLock { $0.registry } }
    /// Counts the changes since start (a document cached for one revision is stale at the next).
    public var revision: Int { state.withLock { $0.revision } }

    /// Calls `handler` with every change from now on, on the thread that made it.
    public func onChange(_ handler: @escaping @Sendable (Change) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    /// The folder plan images are kept in: the venue file's.
    public var venueDirectory: String? {
        venuePath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }

    // MARK: The venue

    /// Checks `bytes` (venue JSON) with the start-up loader, writes them over the venue file (the old one kept as
    /// `.previous`) and puts the venue in use. Nothing changes when it throws.
    @discardableResult
    public func saveVenue(_ bytes: [UInt8]) throws(Refusal) -> Venue {
        guard let venuePath else { throw .noFile("the gateway has no venue file to save to") }
        let file = URL(fileURLWithPath: venuePath).lastPathComponent
        let venue: Venue
        do { venue = try VenueLoader.parse(bytes, file: file, baseDirectory: venueDirectory) } catch {
            // A syntax error names a line and column, and a wrong document its top level: no field.
            let named = !error.path.hasPrefix("line ") && !error.path.hasPrefix("(")
            throw .invalid(message: error.description, field: named ? error.path : "")
        }
        try Self.replace(venuePath, with: bytes)
        use(venue)
        logger.notice("venue saved", metadata: [
            "path": "\(venuePath)", "anchors": "\(venue.anchors.count)", "rooms": "\(venue.rooms.count)",
        ])
        return venue
    }

    /// Keeps a floor's plan image beside the venue file, as `<venue name>.floor<N>.<png|jpg>`; returns that name,
    /// relative to the venue's folder, for the venue's `floors[].plan.image`. PNG and JPEG only.
    public func savePlan(floor: Int, bytes: [UInt8]) throws(Refusal) -> (name: String, width: Int, height: Int) {
        guard let venuePath, let directory = venueDirectory else {
            throw .noFile("the gateway has no venue file to keep a plan beside")
        }
        guard let image = ImageSize.read(bytes) else {
            throw .invalid(message: "a plan image is a PNG or a JPEG (with its size in its header)", field: "")
        }
        let stem = URL(fileURLWithPath: venuePath).deletingPathExtension().lastPathComponent
        let name = "\(stem).floor\(floor).\(image.format.fileExtension)"
        try Self.replace(directory + "/" + name, with: bytes)
        logger.notice("plan image saved", metadata: ["path": "\(directory)/\(name)", "floor": "\(floor)"])
        return (name, image.width, image.height)
    }

    // MARK: The registry

    /// Checks `bytes` (registry JSON) with the start-up loader, writes them over the registry file (the old one
    /// kept as `.previous`) and puts the registry in use. Nothing changes when it throws.
    @discardableResult
    public func saveRegistry(_ bytes: [UInt8]) throws(Refusal) -> DeviceRegistry {
        guard let devicesPath else {
            throw .noFile("no device registry file is configured: set devices (for example devices = "
                + "/var/lib/bluedot/devices.json) and restart")
        }
        let registry: DeviceRegistry
        do {
            registry = try DeviceRegistryFile.parse(bytes, file: URL(fileURLWithPath: devicesPath).lastPathComponent)
        } catch { throw .invalid(message: error.description, field: error.field) }
        try Self.replace(devicesPath, with: bytes)
        use(registry)
        logger.notice("device registry saved", metadata: ["path": "\(devicesPath)", "devices": "\(registry.devices.count)"])
        return registry
    }

    // MARK: Reload (SIGHUP)

    /// Reads the venue and the registry again from their files (`SIGHUP`); a file that fails to load is refused
    /// with one log line and the one in use stays. A venue file that does not exist yet is not an error.
    public func reload() {
        if let venuePath, FileManager.default.fileExists(atPath: venuePath) {
            do {
                let venue = try VenueLoader.load(path: venuePath)
                use(venue)
                logger.notice("venue reloaded", metadata: ["path": "\(venuePath)", "anchors": "\(venue.anchors.count)"])
            } catch {
                logger.error("venue not reloaded; the one in use stays", metadata: ["reason": "\(error)"])
            }
        }
        if let devicesPath, FileManager.default.fileExists(atPath: devicesPath) {
            do {
                let registry = try DeviceRegistryFile.load(path: devicesPath)
                use(registry)
                logger.notice("device registry reloaded", metadata: [
                    "path": "\(devicesPath)", "devices": "\(registry.devices.count)",
                ])
            } catch {
                logger.error("device registry not reloaded; the one in use stays", metadata: ["reason": "\(error)"])
            }
        }
    }

    private func use(_ venue: Venue) {
        state.withLock { s in
            s.venue = venue
            s.venueLoaded = true
            s.revision += 1
        }
        tell(.venue(venue))
    }

    private func use(_ registry: DeviceRegistry) {
        state.withLock { s in
            s.registry = registry
            s.revision += 1
        }
        tell(.registry(registry))
    }

    private func tell(_ change: Change) {
        for handler in handlers.value { handler(change) }
    }

    /// Writes `bytes` to `path` atomically (a temporary file renamed over it), first keeping what was there as
    /// `<path>.previous`, written the same way.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Refusal) {
        do {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let old = FileManager.default.contents(atPath: path) {
                try old.write(to: URL(fileURLWithPath: path + ".previous"), options: .atomic)
            }
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw .io("\(path): cannot be written: \(error.localizedDescription)")
        }
    }
}
