import BlueDotCore
import CMosquitto
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// One message from or for the broker.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic.
    public var topic: String
    /// The payload bytes.
    public var payload: [UInt8]
    /// Delivery: 0 at most once, 1 at least once.
    public var qos: Int
    /// Retained by the broker for later subscribers.
    public var retain: Bool
    /// For a message received: the client's clock when libmosquitto handed it over (before any queueing in Swift).
    public var receivedAt: Double?

    /// Creates a message.
    public init(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false, receivedAt: Double? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.receivedAt = receivedAt
    }

    /// Creates a message with a UTF-8 text payload.
    public init(topic: String, text: String, qos: Int = 0, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }
}

/// What the client reports, in order, on `events`.
public enum MQTTEvent: Sendable, Hashable {
    /// Connected (again): subscriptions were renewed and the birth messages published. The protocol level in use
    /// (5, or 4 for 3.1.1).
    case connected(protocolLevel: Int)
    /// The connection was lost or refused; libmosquitto retries with backoff.
    case disconnected(reason: String)
    /// A message on a subscribed topic.
    case message(MQTTMessage)
}

/// An MQTT client over Eclipse Mosquitto's libmosquitto: one network thread running the library's loop
/// (`mosquitto_loop_forever`), which reconnects by itself after a lost link. The library's loop gives up on
/// errors it deems fatal (a broker refusing MQTT 5 or the credentials, a TLS failure); the thread then waits
/// (1, 2, 4 ... up to `reconnectLargestDelaySeconds`) and connects again, in MQTT 3.1.1 when the broker refused 5,
/// so a client never stops trying until `stop()`.
///
/// Callbacks run on libmosquitto's thread; they only take the client's lock and yield into `events`, an
/// `AsyncStream` that Swift tasks read. Publishing is safe from any thread and never blocks: while the link is
/// down `publish` says so and the caller keeps (or drops) its data. Subscriptions and "birth" messages (a
/// retained `online`) are renewed on every connect; the last will is registered with the broker at connect.
public final class MQTTClient: Sendable {
    /// The result of a `publish`.
    public enum PublishResult: Sendable, Hashable {
        /// Handed to libmosquitto (QoS 1: awaiting the broker's acknowledgement, counted in `inFlight`).
        case sent
        /// Not connected: nothing was sent.
        case notConnected
        /// libmosquitto refused it (too large, bad topic): its words.
        case failed(String)
    }

    /// Counters kept since the client was made.
    public struct Statistics: Sendable, Hashable {
        /// Successful connects.
        public var connects = 0
        /// Connections lost or refused.
        public var disconnects = 0
        /// Messages received.
        public var messagesReceived = 0
        /// Messages received that the reader of `events` had no room for (dropped, newest kept).
        public var messagesDropped = 0
        /// Messages handed to libmosquitto.
        public var messagesPublished = 0
    }

    /// Where and how to connect.
    public let options: MQTTOptions
    /// Everything the client reports; read by one task.
    public let events: AsyncStream<MQTTEvent>
    private let handle: Handle
    private let box: CallbackBox
    private let logger: Logger

    /// libmosquitto's global set-up, done once per process.
    private static let libraryReady: Bool = {
        mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue
    }()

    /// Makes a client; nothing connects until `start()`. `will` is published by the broker if this client
    /// vanishes; `birth` is published after every connect (a retained `online`). Throws when libmosquitto refuses
    /// an option (unreadable TLS files, a bad client id).
    public init(
        options: MQTTOptions, will: MQTTMessage? = nil, birth: [MQTTMessage] = [], eventBuffer: Int = 100_000,
        clock: any BlueDotClock = SystemClock(), logger: Logger
    ) throws(MQTTError) {
        guard Self.libraryReady else { throw .badOption("library", "mosquitto_lib_init failed") }
        self.options = options
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(
            of: MQTTEvent.self, bufferingPolicy: .bufferingNewest(max(1, eventBuffer)))
        events = stream
        box = CallbackBox(
            continuation: continuation, birth: birth, protocolVersion: options.protocolVersion, clock: clock,
            logger: logger)
        let id = options.clientID.isEmpty ? nil : options.clientID
        guard let mosq = mosquitto_new(id, true, Unmanaged.passUnretained(box).toOpaque()) else {
            throw .badOption("client", "mosquitto_new failed (client id \"\(options.clientID)\")")
        }
        handle = Handle(pointer: mosq)
        box.handle = handle
        // Every stored property is set: if configuring throws, `deinit` runs and destroys the handle (once).
        try configure(mosq, will: will)
    }

    deinit {
        if box.beginStopping() {
            mosquitto_disconnect(handle.pointer)
            box.waitForNetworkThread()
            box.stop()
        }
        mosquitto_destroy(handle.pointer)
    }

    private func configure(_ mosq: OpaquePointer, will: MQTTMessage?) throws(MQTTError) {
        func check(_ rc: Int32, _ option: String) throws(MQTTError) {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .badOption(option, Self.describe(rc)) }
        }
        let level = options.protocolVersion == .v311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5
        try check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, level), "protocol version")
        if options.username != nil || options.password != nil {
            try check(mosquitto_username_pw_set(mosq, options.username, options.password), "user name")
        }
        if options.tls {
            let capath: String? = options.caFile == nil ? "/etc/ssl/certs" : nil
            try check(mosquitto_tls_set(mosq, options.caFile, capath, options.certFile, options.keyFile, nil), "tls")
        }
        if let will {
            try check(will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(mosq, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos), will.retain)
            }, "will")
        }
        try check(mosquitto_reconnect_delay_set(
            mosq, UInt32(options.reconnectFirstDelaySeconds), UInt32(options.reconnectLargestDelaySeconds), true),
            "reconnect delay")
        mosquitto_connect_callback_set(mosq) { _, obj, rc in CallbackBox.of(obj)?.connected(rc) }
        mosquitto_disconnect_callback_set(mosq) { _, obj, rc in CallbackBox.of(obj)?.disconnected(rc) }
        mosquitto_publish_callback_set(mosq) { _, obj, mid in CallbackBox.of(obj)?.acknowledged(mid) }
        mosquitto_message_callback_set(mosq) { _, obj, message in
            guard let message else { return }
            CallbackBox.of(obj)?.received(message.pointee)
        }
    }

    /// Starts libmosquitto's network thread and the first connect; later connects happen by themselves until
    /// `stop()`. A broker that is down is not an error: the client keeps trying.
    public func start() throws(MQTTError) {
        let rc = mosquitto_threaded_set(handle.pointer, true)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .badOption("network thread", Self.describe(rc)) }
        guard box.beginRunning() else { return }
        let keepalive = Int32(min(65535, max(5, options.keepAliveSeconds)))
        let connect = mosquitto_connect_async(handle.pointer, options.host, Int32(options.port), keepalive)
        if connect != MOSQ_ERR_SUCCESS.rawValue {
            // Refused or unreachable right away: the network thread retries with backoff.
            logger.warning("broker not reachable yet; retrying", metadata: [
                "broker": "\(options.url)", "error": "\(Self.describe(connect))",
            ])
            box.noteDisconnect(Self.describe(connect))
        }
        let handle = handle, box = box, logger = logger, options = options
        box.networkThreadStarts()
        SystemThread.detach(name: "bluedot-mqtt") {
            defer { box.networkThreadEnded() }
            Self.serve(handle: handle, box: box, options: options, logger: logger)
        }
    }

    /// The network thread: libmosquitto's loop, and after each fatal return a pause and a fresh connect.
    private static func serve(handle: Handle, box: CallbackBox, options: MQTTOptions, logger: Logger) {
        var delay = Double(options.reconnectFirstDelaySeconds)
        while !box.isStopping {
            let rc = mosquitto_loop_forever(handle.pointer, 1000, 1)
            if box.isStopping { return }
            let reason = Self.describe(rc)
            box.noteDisconnect(reason)
            logger.warning("MQTT loop ended; connecting again", metadata: [
                "broker": "\(options.url)", "error": "\(reason)", "retryInSeconds": "\(delay)",
            ])
            // A pause that stop() ends at once.
            if box.wait(seconds: delay, until: { $0.stopping }) { return }
            delay = min(delay * 2, Double(options.reconnectLargestDelaySeconds))
            if mosquitto_reconnect(handle.pointer) == MOSQ_ERR_SUCCESS.rawValue {
                delay = Double(options.reconnectFirstDelaySeconds)
            }
        }
    }

    /// Adds a subscription (kept and renewed on every connect); subscribes now when connected.
    public func subscribe(_ filter: String, qos: Int = 0) throws(MQTTError) {
        guard mosquitto_sub_topic_check(filter) == MOSQ_ERR_SUCCESS.rawValue else { throw .badTopic(filter) }
        if box.addSubscription(filter, qos: qos) {
            _ = mosquitto_subscribe(handle.pointer, nil, filter, Int32(qos))
        }
    }

    /// Publishes `message` now, and again after every reconnect, replacing an earlier birth message on its topic:
    /// a retained value the broker must hold whatever happens to it (the solver's venue).
    @discardableResult
    public func keepPublished(_ message: MQTTMessage) -> PublishResult {
        box.keep(message)
        return publish(message)
    }

    /// Publishes without blocking; `.notConnected` while the link is down.
    @discardableResult
    public func publish(_ message: MQTTMessage) -> PublishResult {
        guard box.isConnected else { return .notConnected }
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle.pointer, &mid, message.topic, Int32(bytes.count), bytes.baseAddress,
                              Int32(message.qos), message.retain)
        }
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            box.published(mid: mid, qos: message.qos)
            return .sent
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue:
            return .notConnected
        default:
            return .failed(Self.describe(rc))
        }
    }

    /// Whether the link is up.
    public var isConnected: Bool { box.isConnected }
    /// QoS 1 messages sent and not yet acknowledged by the broker.
    public var inFlight: Int { box.inFlight }
    /// The counters.
    public var statistics: Statistics { box.statistics }
    /// The protocol level of the current (or last) connection: 5, or 4 for 3.1.1.
    public var protocolLevel: Int { box.protocolLevel }

    /// Publishes `farewell` (a retained `offline`), waits up to `waitSeconds` for the broker's acknowledgements,
    /// disconnects cleanly (so no last will is sent), stops the network thread and ends `events`. Safe more than
    /// once.
    public func stop(farewell: [MQTTMessage] = [], waitSeconds: Double = 1) {
        guard box.beginStopping() else { return }
        for message in farewell { publish(message) }
        if !farewell.isEmpty {
            // Until the broker has acknowledged every message, the link is lost, or the time is up.
            _ = box.wait(seconds: waitSeconds, until: { $0.inFlight.isEmpty || !$0.connected })
        }
        mosquitto_disconnect(handle.pointer)
        box.waitForNetworkThread()
        box.stop()
    }

    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue {
            return String(cString: strerror(errno))
        }
        return String(cString: mosquitto_strerror(rc))
    }
}

/// The raw libmosquitto handle; libmosquitto locks internally once its network thread runs.
struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The state the callbacks share with Swift callers, behind one lock.
final class CallbackBox: Sendable {
    struct State {
        var connected = false
        var running = false
        var stopping = false
        var stopped = false
        /// The network thread runs (from `start()` until its loop returns).
        var networkThread = false
        var subscriptions: [(filter: String, qos: Int)] = []
        var inFlight: Set<Int32> = []
        /// Message ids acknowledged before `publish` recorded them (the broker can answer before
        /// `mosquitto_publish` returns), the last 256.
        var acknowledgedEarly: [Int32] = []
        var statistics = MQTTClient.Statistics()
        var protocolVersion: MQTTOptions.ProtocolVersion
        var protocolLevel = 5
        var lastDisconnect: String?
    }

    private let state: LockedValue<State>
    /// Announces changes to the threads that wait for one (`wait(seconds:until:)`).
    private let changes = ThreadCondition()
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let birth: LockedValue<[MQTTMessage]>
    private let logger: Logger
    private let clock: any BlueDotClock
    private let handleBox = LockedValue<Handle?>(nil)

    init(continuation: AsyncStream<MQTTEvent>.Continuation, birth: [MQTTMessage],
         protocolVersion: MQTTOptions.ProtocolVersion, clock: any BlueDotClock, logger: Logger) {
        self.continuation = continuation
        self.clock = clock
        self.birth = LockedValue(birth)
        self.logger = logger
        state = LockedValue(State(protocolVersion: protocolVersion,
                                  protocolLevel: protocolVersion == .v311 ? 4 : 5))
    }

    var handle: Handle? {
        get { handleBox.value }
        set { handleBox.withLock { $0 = newValue } }
    }

    static func of(_ obj: UnsafeMutableRawPointer?) -> CallbackBox? {
        obj.map { Unmanaged<CallbackBox>.fromOpaque($0).takeUnretainedValue() }
    }

    var isConnected: Bool { state.withLock { $0.connected && !$0.stopped } }
    var inFlight: Int { state.withLock { $0.inFlight.count } }
    var statistics: MQTTClient.Statistics { state.withLock { $0.statistics } }
    var protocolLevel: Int { state.withLock { $0.protocolLevel } }

    /// Records a subscription; true when it should be sent now (connected).
    func addSubscription(_ filter: String, qos: Int) -> Bool {
        state.withLock { s in
            s.subscriptions.removeAll { $0.filter == filter }
            s.subscriptions.append((filter, qos))
            return s.connected
        }
    }

    func published(mid: Int32, qos: Int) {
        state.withLock { s in
            s.statistics.messagesPublished += 1
            guard qos > 0 else { return }
            if let early = s.acknowledgedEarly.firstIndex(of: mid) {
                s.acknowledgedEarly.remove(at: early)
            } else {
                s.inFlight.insert(mid)
            }
        }
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Waits, on the calling thread, until `condition` holds of the state or `seconds` have passed; true when it
    /// holds. Every change a waiter may wait for (`stopping`, `connected`, `inFlight`, the network thread's end)
    /// is announced through `changes`.
    func wait(seconds: Double, until condition: (State) -> Bool) -> Bool {
        let deadline = SystemClock().now() + seconds
        changes.lock()
        defer { changes.unlock() }
        while !state.withLock({ condition($0) }) {
            guard changes.wait(untilSecondsSince1970: deadline) else { return state.withLock { condition($0) } }
        }
        return true
    }

    /// Tells waiters that the state changed. Taking the condition's lock orders the change before any waiter's
    /// next look: a waiter between its look and its wait holds the lock, so the wake cannot fall in between.
    private func announce() {
        changes.lock()
        changes.broadcast()
        changes.unlock()
    }

    func networkThreadStarts() {
        state.withLock { $0.networkThread = true }
    }

    func networkThreadEnded() {
        state.withLock { $0.networkThread = false }
        announce()
    }

    /// Waits until the network thread, if it was started, has ended.
    func waitForNetworkThread() {
        while !wait(seconds: 3600, until: { !$0.networkThread }) {}
    }

    /// True the first time: the network thread is to be started.
    func beginRunning() -> Bool {
        state.withLock { s in
            defer { s.running = true }
            return !s.running && !s.stopping
        }
    }

    func beginStopping() -> Bool {
        let first = state.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        announce()
        return first
    }

    func stop() {
        state.withLock { s in
            s.stopped = true
            s.connected = false
        }
        continuation.finish()
    }

    /// CONNACK (libmosquitto's thread): renew subscriptions, publish the birth messages, report.
    func connected(_ rc: Int32) {
        guard let handle else { return }
        guard rc == 0 else {
            let reason = String(cString: mosquitto_reason_string(rc))
            // MQTT 5 refused (libmosquitto reports a 3.1.1 broker's CONNACK 1 "unacceptable protocol version" as
            // 0x84): the next attempt, made by the network thread, speaks 3.1.1.
            let fellBack = state.withLock { s -> Bool in
                guard s.protocolVersion == .automatic, s.protocolLevel == 5,
                      rc == 1 || rc == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) else { return false }
                s.protocolLevel = 4
                return true
            }
            if fellBack {
                mosquitto_int_option(handle.pointer, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
                logger.notice("broker refused MQTT 5; using 3.1.1")
            }
            noteDisconnect("connection refused: \(reason)")
            return
        }
        let (subscriptions, level) = state.withLock { s in
            s.connected = !s.stopped
            s.inFlight.removeAll()
            s.statistics.connects += 1
            s.lastDisconnect = nil
            return (s.subscriptions, s.protocolLevel)
        }
        for (filter, qos) in subscriptions { _ = mosquitto_subscribe(handle.pointer, nil, filter, Int32(qos)) }
        for message in birth.value {
            _ = message.payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle.pointer, nil, message.topic, Int32(bytes.count), bytes.baseAddress,
                                  Int32(message.qos), message.retain)
            }
        }
        continuation.yield(.connected(protocolLevel: level))
    }

    /// Publishes `message` after every connect from now on, in place of a birth message on the same topic.
    func keep(_ message: MQTTMessage) {
        birth.withLock { messages in
            messages.removeAll { $0.topic == message.topic }
            messages.append(message)
        }
    }

    /// The link went down (libmosquitto's thread), or the first connect failed.
    func disconnected(_ rc: Int32) {
        noteDisconnect(rc == 0 ? "disconnected" : MQTTClient.describe(rc))
    }

    func noteDisconnect(_ reason: String) {
        let report = state.withLock { s -> Bool in
            let was = s.connected
            s.connected = false
            s.inFlight.removeAll()
            if was { s.statistics.disconnects += 1 }
            // Report each new reason once, not every retry.
            defer { s.lastDisconnect = reason }
            return !s.stopping && (was || s.lastDisconnect != reason)
        }
        announce()
        if report { continuation.yield(.disconnected(reason: reason)) }
    }

    func acknowledged(_ mid: Int32) {
        state.withLock { s in
            if s.inFlight.remove(mid) == nil {
                s.acknowledgedEarly.append(mid)
                if s.acknowledgedEarly.count > 256 { s.acknowledgedEarly.removeFirst() }
            }
        }
        announce()
    }

    /// A message (libmosquitto's thread): copied out of libmosquitto's memory, then yielded.
    func received(_ m: mosquitto_message) {
        let topic = m.topic.map { String(cString: $0) } ?? ""
        let count = Int(max(0, m.payloadlen))
        let payload: [UInt8] = count == 0 || m.payload == nil
            ? [] : Array(UnsafeRawBufferPointer(start: m.payload, count: count))
        let result = continuation.yield(.message(MQTTMessage(topic: topic, payload: payload, qos: Int(m.qos),
                                                             retain: m.retain, receivedAt: clock.now())))
        state.withLock { s in
            s.statistics.messagesReceived += 1
            if case .dropped = result { s.statistics.messagesDropped += 1 }
        }
    }
}
