#!/usr/bin/env python3
"""Real-browser check of the campus view's site picker (`bluedot run --sites`, docs/site.md "Many buildings").

Starts its own mosquitto on a free loopback port and publishes, retained, what two buildings' solvers (sites `west`
and `east`) would: each site's venue (different names, anchors, rooms and floors), its solver status `online`, its
bridge notification `1` and one location (tag-w in west, tag-e in east). Then starts
`bluedot run --mqtt mqtt://127.0.0.1:PORT --sites + --listen 127.0.0.1:0 --history off` (with `--web-root` when
given, to serve a page folder under work), opens its map in Debian's headless chromium (through chromium-driver
and selenium) and checks:
- picker: the site picker is shown and lists east and west;
- westDrawn: picking west draws west's venue (its name, its anchors, its room labels, its floor buttons);
- westDots: tag-w is drawn, tag-e is not;
- switch: picking east draws east's venue and floor buttons, and tag-e only, without a new fix (the page keeps
  every site's targets);
- stale: after `bridge` 0 is published for east, the picker marks east stale (and west not) within `--stale-seconds`;
- reload: with west picked, a reload of the page shows west again (the pick is kept in the URL);
- local: every request the page made went to the gateway (the browser's performance entries).
Stops mosquitto, bluedot and the browser on the way out, a failure or SIGTERM included. Prints one JSON line with
what it saw; exit 0 on pass, 1 on failure, 2 when the browser cannot start.

    campus_test.py --bluedot PATH [--web-root Sources/Gateway/Page] [--screenshot PATH] [--stale-seconds 8]
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import chromium

# Two buildings, told apart by everything the map draws: name, anchors, rooms and floors.
SITES = {
    "west": {
        "target": "tag-w", "at": (2.0, 3.0),
        "venue": {
            "name": "West wing",
            "anchors": [{"id": "w-rx1", "x": 0, "y": 0}, {"id": "w-rx2", "x": 12, "y": 0},
                        {"id": "w-rx3", "x": 0, "y": 9}],
            "floors": [{"floor": 0, "name": "West ground"}],
            "bounds": [[0, 0], [12, 9]],
            "rooms": [{"id": "w-hall", "name": "West hall", "floor": 0,
                       "polygon": [[0, 0], [6, 0], [6, 5], [0, 5]]}],
        },
    },
    "east": {
        "target": "tag-e", "at": (15.0, 6.0),
        "venue": {
            "name": "East wing",
            "anchors": [{"id": "e-rx1", "x": 10, "y": 0}, {"id": "e-rx2", "x": 30, "y": 0},
                        {"id": "e-rx3", "x": 10, "y": 14}, {"id": "e-rx4", "x": 30, "y": 14},
                        {"id": "e-rx5", "x": 20, "y": 7, "floor": 1}],
            "floors": [{"floor": 0, "name": "East ground"}, {"floor": 1, "name": "East first"}],
            "bounds": [[10, 0], [30, 14]],
            "rooms": [{"id": "e-lab", "name": "East lab", "floor": 0,
                       "polygon": [[10, 0], [20, 0], [20, 7], [10, 7]]},
                      {"id": "e-store", "name": "East store", "floor": 0,
                       "polygon": [[20, 7], [30, 7], [30, 14], [20, 14]]}],
        },
    },
}

# What the map shows now: the picker, the venue, its floor buttons, anchors, room labels and the tags drawn.
SHOWN_JS = """
const b = window.bluedot, picker = document.getElementById('site');
if (!b) return null;
const texts = (selector) => Array.from(document.querySelectorAll(selector)).map((e) => e.textContent);
return {
  pickerShown: !!picker && !picker.hidden && picker.offsetParent !== null,
  options: picker ? Array.from(picker.options).map((o) => ({value: o.value, text: o.textContent,
                                                             stale: o.dataset.stale})) : [],
  picked: picker ? picker.value : null, site: b.state.site, venue: b.state.venue ? b.state.venue.name : null,
  venueName: document.getElementById('venue-name').textContent,
  floors: texts('#floors button'), anchors: document.querySelectorAll('.bd-anchor').length,
  rooms: texts('.bd-room-label').map((t) => t.split(' · ')[0]).sort(),
  dots: Array.from(document.querySelectorAll('.bd-marker')).map((e) => e.dataset.target).sort(),
  hash: location.hash, events: b.state.events,
};
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, seconds: float, interval: float = 0.2):
    """Polls `condition` until it returns something true or `seconds` pass; returns its last value."""
    deadline = time.time() + seconds
    while True:
        value = condition()
        if value or time.time() >= deadline:
            return value
        time.sleep(interval)


def wait_port(port: int, seconds: float) -> bool:
    def accepts():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False
    return wait_for(accepts, seconds)


class Broker:
    """A retained-message publisher on the test's mosquitto (paho-mqtt)."""

    def __init__(self, port: int):
        import paho.mqtt.client as mqtt
        if hasattr(mqtt, "CallbackAPIVersion"):  # paho-mqtt 2
            self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="campus-test")
        else:
            self.client = mqtt.Client(client_id="campus-test")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def retain(self, topic: str, payload) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self.client.publish(topic, text, qos=1, retain=True).wait_for_publish(timeout=10)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def publish_sites(broker: Broker) -> None:
    """What each building's solver publishes (docs/formats.md, "Topics of a site"), and its bridge's `1`."""
    now = time.time()
    for site, spec in SITES.items():
        x, y = spec["at"]
        broker.retain(f"bluedot/{site}/venue", spec["venue"])
        broker.retain(f"bluedot/{site}/status", "online")
        broker.retain(f"bluedot/{site}/bridge", "1")
        broker.retain(f"bluedot/{site}/locations/{spec['target']}",
                      {"t": round(now, 3), "target": spec["target"], "x": x, "y": y, "horizontalAccuracy": 1.5,
                       "lastKnown": False, "anchors": 4})


def drawn_as(shown, site: str) -> bool:
    """Whether the map shows `site`'s venue as its venue document says: name, floor buttons, the first floor's
    anchors and room labels, and the picker on it."""
    if not shown:
        return False
    venue = SITES[site]["venue"]
    first = venue["floors"][0]["floor"]
    return (shown["site"] == site and shown["picked"] == site and shown["venue"] == venue["name"]
            and shown["venueName"] == venue["name"]
            and shown["floors"] == [f["name"] for f in venue["floors"]]
            and shown["anchors"] == sum(1 for a in venue["anchors"] if a.get("floor", 0) == first)
            and shown["rooms"] == sorted(r["name"] for r in venue["rooms"] if r["floor"] == first))


def dots_of(shown, site: str) -> bool:
    """Whether the map draws exactly `site`'s tag."""
    return bool(shown) and shown["dots"] == [SITES[site]["target"]]


def main() -> int:
    # SIGTERM ends the check through the `finally` below, which stops everything it started.
    chromium.stop_on_sigterm()
    parser = argparse.ArgumentParser()
    parser.add_argument("--bluedot", required=True)
    parser.add_argument("--web-root", help="serve the page from this folder (bluedot run --web-root)")
    parser.add_argument("--mosquitto", default="/usr/sbin/mosquitto")
    parser.add_argument("--screenshot")
    parser.add_argument("--stale-seconds", type=float, default=8.0,
                        help="how long the picker may take to mark a site whose bridge went down")
    chromium.add_arguments(parser)
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="bluedot-campus-")
    port = free_port()
    with open(os.path.join(scratch, "mosquitto.conf"), "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    processes, broker = [], None
    bluedot_log = os.path.join(scratch, "bluedot.log")

    def start(command, log):
        with open(os.path.join(scratch, log), "w") as stderr:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
        processes.append(process)
        return process

    def check(driver, report):
        nonlocal broker
        from selenium.webdriver.support.ui import Select

        checks = report["checks"] = {}
        start([args.mosquitto, "-c", os.path.join(scratch, "mosquitto.conf")], "mosquitto.log")
        if not wait_port(port, 10):
            report["error"] = "mosquitto did not listen within 10 s"
            return
        broker = Broker(port)
        publish_sites(broker)
        command = [args.bluedot, "run", "--mqtt", f"mqtt://127.0.0.1:{port}", "--sites", "+",
                   "--listen", "127.0.0.1:0", "--history", "off"]
        if args.web_root:
            command += ["--web-root", args.web_root]
        bluedot = start(command, "bluedot.log")

        def printed_url():
            with open(bluedot_log) as log:
                found = re.search(r"url=(http://\S+)", log.read())
            return found.group(1) if found else (bluedot.poll() is not None and "exited")
        url = wait_for(printed_url, 30)
        if not url or url == "exited":
            report["error"] = "bluedot run printed no URL"
            return
        report["url"] = url
        base = url.rstrip("/")

        # Both sites known, each with its venue, before the page starts.
        def sites():
            with urllib.request.urlopen(base + "/api/sites", timeout=5) as response:
                listed = json.load(response)["sites"]
            return listed if len(listed) == 2 and all(s["venue"] for s in listed) else None
        if not wait_for(sites, 15):
            report["error"] = "GET /api/sites did not list both sites with their venues within 15 s"
            return

        def shown():
            return driver.execute_script(SHOWN_JS)

        def pick(site):
            pickers = driver.find_elements("id", "site")
            if not pickers or not pickers[0].is_displayed():
                raise AssertionError("the page shows no site picker")
            Select(pickers[0]).select_by_value(site)

        def requested():
            return driver.execute_script(
                "return performance.getEntriesByType('navigation')"
                ".concat(performance.getEntriesByType('resource')).map((e) => e.name);")

        # The first site (sorted: east) is shown at first; the picker lists both.
        driver.get(url)
        first = wait_for(lambda: (lambda s: s if drawn_as(s, "east") else None)(shown()), 20)
        seen = shown()
        report["atStart"] = seen
        checks["picker"] = bool(seen and seen["pickerShown"]
                                and [o["value"] for o in seen["options"]] == ["east", "west"]
                                and [o["text"] for o in seen["options"]] == ["east", "west"]) and bool(first)

        # West: its venue, its tag only.
        pick("west")
        west = wait_for(lambda: (lambda s: s if drawn_as(s, "west") and dots_of(s, "west") else None)(shown()), 10)
        west = west or shown()
        report["west"] = west
        checks["westDrawn"] = drawn_as(west, "west")
        checks["westDots"] = dots_of(west, "west")

        # East: its venue and floors, and tag-e from the page's state (no new fix comes).
        events = west["events"] if west else None
        began = time.time()
        pick("east")
        east = wait_for(lambda: (lambda s: s if drawn_as(s, "east") and dots_of(s, "east") else None)(shown()), 10)
        report["switchSeconds"] = round(time.time() - began, 2)
        east = east or shown()
        report["east"] = east
        checks["switch"] = drawn_as(east, "east") and dots_of(east, "east") and east["events"] == events

        # East's bridge goes down: the picker marks it stale within the page's 5 s refresh (and a margin).
        broker.retain("bluedot/east/bridge", "0")
        began = time.time()

        def marked():
            s = shown()
            if not s:
                return None
            texts = {o["value"]: o["text"] for o in s["options"]}
            return s if texts == {"east": "east (stale)", "west": "west"} else None
        stale = wait_for(marked, args.stale_seconds)
        report["staleSeconds"] = round(time.time() - began, 2) if stale else None
        report["staleOptions"] = (stale or shown())["options"]
        checks["stale"] = bool(stale) and drawn_as(stale, "east")

        # West again, then a reload: west is still the one shown.
        pick("west")
        wait_for(lambda: drawn_as(shown(), "west"), 10)
        loaded = requested()  # a reload starts the page's list of requests afresh
        driver.refresh()
        again = wait_for(lambda: (lambda s: s if drawn_as(s, "west") and dots_of(s, "west") else None)(shown()), 20)
        again = again or shown()
        report["reload"] = again
        checks["reload"] = drawn_as(again, "west") and dots_of(again, "west") and "site=west" in again["hash"]

        if args.screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
            driver.save_screenshot(args.screenshot)
            report["screenshot"] = os.path.abspath(args.screenshot)
        # Everything the page loaded, before and after the reload, came from the gateway: nothing from the network.
        loaded += requested()
        report["requests"] = len(loaded)
        report["externalRequests"] = [u for u in loaded if not u.startswith(base + "/")]
        checks["local"] = bool(loaded) and not report["externalRequests"]
        report["ok"] = all(checks.values())

    try:
        return chromium.run_check(args, check)
    finally:
        if broker:
            broker.close()
        chromium.stop_processes(reversed(processes))  # bluedot first, then its broker
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
