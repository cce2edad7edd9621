import ArgumentParser
import Gateway
import Testing

@testable import bluedot

/// The golden help of `bluedot run` at 100 columns: every setting of the table listed with its value name and
/// help, as swift-argument-parser prints it (and as completions and generated man pages see it). A change to a
/// setting's name or help shows here; accept it by updating this text.
@Suite struct RunHelpTests {
    @Test func runHelpIsGolden() {
        let help = BlueDot.helpMessage(for: RunCommand.self, columns: 100)
        #expect(help == Self.golden, "\(help)")
    }

    /// Shell completions and the JSON dump that man pages are generated from know every flag of the table too.
    @Test func completionsAndTheHelpDumpListEveryFlag() {
        let bash = BlueDot.completionScript(for: .bash)
        let dump = BlueDot._dumpHelp()
        for flag in GatewaySetting.all.flatMap(\.flags) {
            #expect(bash.contains("--\(flag.name)"), "bash completion of --\(flag.name)")
            #expect(dump.contains("\"\(flag.name)\""), "help dump of --\(flag.name)")
        }
    }

    static let golden = """
        OVERVIEW: Run the gateway: positions from a scanner, recordings, files or a simulation; web map,
        API, metrics.

        Settings come from --config (key = value lines; docs/gateway.md lists every key) and then these
        flags, which override the file. Each flag is the key of the same name (--insecure is insecure =
        true, --espresense-prefix P is espresense = P, --no-ha-discovery is ha-discovery = false). Inputs
        combine: one controller (--hci, --h4-tcp or --h4-tty) and any of --replay, --observations and
        --simulate all feed one positioning engine. Listening on an address other than loopback needs
        --token (or the BLUEDOT_TOKEN environment variable) or --insecure. SIGTERM/SIGINT stop the scan,
        flush the recording and exit 0.

        A site over MQTT (docs/site.md): a receiver runs with --publish MQTT_URL --site SITE --receiver ID
        and a radio source, and publishes every report it hears; the solver runs with --mqtt MQTT_URL
        --site SITE --venue V --mode tag (and --espresense for ESPresense nodes) and publishes every fix.
        The broker password comes from --mqtt-password-file or the configuration file, never from a flag.
        The solver also announces every target to Home Assistant (MQTT discovery; --no-ha-discovery turns
        it off).

        Every fix and room change goes into the location history (--history; by default history.sqlite in
        the service's state directory), served at /api/history.

        USAGE: bluedot run <options>

        OPTIONS:
          --config <config>       Configuration file (key = value lines).
          --hci <adapter>         BlueZ adapter: hci0, an index, or its address (needs AF_BLUETOOTH).
          --user-channel          With --hci: exclusive HCI user channel (the adapter must be down).
          --h4-tcp <host:port>    H4 over TCP, HOST:PORT (a virtual or networked controller).
          --h4-tty <path>         H4 over a serial line at PATH.
          --baud <baud>           Serial line speed for --h4-tty (default 115200).
          --replay <file>         Replay a btsnoop recording at its recorded pace.
          --observations <file>   Replay an observation JSONL file at its recorded pace.
          --simulate <file>       Simulate a walk along a truth JSONL track through the venue.
          --gpsd <host:port>      Self mode: GNSS from gpsd at HOST:PORT (port 2947 if left out), handed
                                  over with beacons at the door.
          --venue <file>          Venue file (JSON).
          --mode <mode>           self (the gateway locates itself) or tag (this gateway is a receiver
                                  hearing tags).
          --gateway-id <id>       Tag mode: this receiver's anchor id in the venue.
          --devices <file>        Device registry (JSON): the phones, watches and tags tracked, by IRK,
                                  beacon id or address.
          --devices-list-unknown  Log each unknown device heard once, to set up the registry (default
                                  false: only counted).
          --listen <host:port>    HTTP address, HOST:PORT (default 127.0.0.1:8080).
          --record <file>         Record every HCI packet of a live scan to this btsnoop file.
          --token <token>         Bearer token for /api and /metrics (or BLUEDOT_TOKEN).
          --insecure              Allow a non-loopback --listen without a token.
          --editable              Serve the set-up page (/setup) and take the venue and device registry it
                                  saves (PUT /api/venue, /api/devices); the files may not exist yet
                                  (default false: every save is refused with 403).
          --bluez-keys <folder>   BlueZ's key folder, which the set-up page imports paired devices' IRKs
                                  from (default /var/lib/bluetooth).
          --loop                  Replays start over when they end.
          --speed <factor>        Replay speed (1 = real time).
          --interval <seconds>    Seconds between fixes on each target's grid (default 1).
          --stale-after <seconds> Seconds without an update before a target is drawn as last known (default
                                  5).
          --away-timeout <seconds>
                                  Seconds of silence before a target that fell silent at an exit room
                                  (anywhere, in a venue without exits) reads not_home (default 120).
          --away-timeout-inside <seconds>
                                  Seconds of silence before a target that fell silent away from the exits
                                  reads not_home (default 2700).
          --fast-clock <rate@epoch>
                                  For simulations: the clock reads EPOCH + (wall - EPOCH) x RATE, every
                                  timer RATE times faster (EPOCH defaults to the start).
          --web-root <folder>     Serve the web page from this folder.
          --leaflet <folder>      Leaflet's folder (default /usr/share/javascript/leaflet).
          --mqtt <url>            Solver role: take the site's receivers from this broker
                                  (mqtt://[user@]host[:port] or mqtts://...).
          --publish <url>         Receiver role: publish every report heard to this broker (mqtt://... or
                                  mqtts://...).
          --site <name>           The site's name (one MQTT topic level).
          --sites <names>         Campus view: show these sites' solvers' locations from the mqtt broker
                                  (comma-separated, or + for every site); solves nothing.
          --receiver <id>         Receiver role (and a solver's own radio): this receiver's id, its anchor
                                  id in the venue.
          --mqtt-password-file <file>
                                  File whose first line is the broker password.
          --mqtt-client-id <id>   MQTT client id (default bluedot-<role>-<site>[-<receiver>]).
          --mqtt-keepalive <seconds>
                                  MQTT keepalive, seconds (default 30).
          --mqtt-ca <file>        CA certificates (PEM) for mqtts.
          --mqtt-cert <file>      Client certificate (PEM) for mqtts.
          --mqtt-key <file>       Client certificate key (PEM) for mqtts.
          --mqtt-protocol <version>
                                  auto (MQTT 5, falling back to 3.1.1), 5 or 3.1.1.
          --espresense            Solver role: also take ESPresense nodes' reports
                                  (espresense/devices/<device>/<node>).
          --espresense-prefix <topic>
                                  ESPresense base topic (default espresense); implies --espresense.
          --publish-allow <globs> Receiver role: comma-separated beacon-id globs to publish (default all).
          --publish-buffer <seconds>
                                  Receiver role: seconds of sightings kept while the broker is away
                                  (default 30).
          --advertise             Receiver role (and a solver's own radio): advertise while scanning, so
                                  the other receivers hear this one and the solver learns their gains
                                  (default false).
          --reorder-window <seconds>
                                  Solver role: seconds sightings wait for slower receivers (default 0.3).
          --history <file>        Location history: an SQLite file, default (the state directory's
                                  history.sqlite), memory or off.
          --history-retention <days>
                                  Days of history kept (default 30).
          --history-max-size <MiB>
                                  History size cap, MiB (default 1024).
          --no-self-calibration   Do not learn the anchors' models from ordinary traffic.
          --learned-calibration <file>
                                  Where self-calibration keeps what it learned: a file, default (the state
                                  directory's learned-calibration.json), or memory.
          --no-ha-discovery       Solver role: do not publish Home Assistant MQTT discovery.
          --ha-prefix <topic>     Solver role: Home Assistant's discovery prefix (default homeassistant).
          --ha-allow <globs>      Solver role: comma-separated target-id globs announced to Home Assistant
                                  (default all).
          --ha-names <names>      Solver role: friendly names, target=Name pairs separated by commas.
          --ha-away-timeout <seconds>
                                  The old name of away-timeout.
          --ha-remove <targets>   Solver role: target ids whose Home Assistant entities are removed,
                                  comma-separated.
          --log-level <log-level> Log level on stderr: trace, debug, info, notice, warning, error,
                                  critical. (default: info)
          --version               Show the version.
          -h, --help              Show help information.

        """
}
