#!/usr/bin/env python3
"""Real-browser check of compass navigation, driven by GatewayTests (BrowserTests.swift).

Starts `bluedot run --gpsd` (GNSS alone) over a venue placed where gpsd's regression log rst39.log was recorded
(an OxTS GNSS/IMU in a turning vehicle, Tools/gnss/logs), then Debian's gpsd replaying that log through
`gpsfake`. Loads the map in headless chromium, turns Compass on, and checks while the log plays:
- the Compass button comes on with the first heading;
- every settled map rotation is minus the heading the feed carries (within 1 degree), and the map takes at least
  `--turns` different headings: it turns as the heading changes;
- the heading wedge points at the heading; the info panel says the source is GNSS.
Prints one JSON line with what it saw; exit 0 on pass, 1 on failure, 2 when the browser cannot start.

    compass_test.py --bluedot PATH --log rst39.log [--turns 2] [--screenshot PATH]
"""
import argparse
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request

import chromium


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def main() -> int:
    # A child of the Swift test runner inherits its blocked signals; gpsfake and bluedot need them, and SIGTERM ends
    # this check through the `finally` below, which stops gpsfake (and with it gpsd) and bluedot.
    chromium.stop_on_sigterm()
    parser = argparse.ArgumentParser()
    parser.add_argument("--bluedot", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--cycle", default="0.15")
    parser.add_argument("--screenshot")
    chromium.add_arguments(parser)
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="bluedot-compass-")
    venue = os.path.join(scratch, "yard.venue.json")
    # Where rst39.log was recorded; +y north, so plan degrees are compass degrees.
    with open(venue, "w") as f:
        json.dump({"name": "rst39 yard", "origin": {"lat": 42.0955, "lon": -88.0340, "bearing": 0.0},
                   "anchors": [{"id": "a1", "x": 0, "y": 0}, {"id": "a2", "x": 60, "y": 0},
                               {"id": "a3", "x": 0, "y": 60}],
                   "bounds": [[-20, -20], [80, 80]]}, f)
    gpsd_port, http_port = free_port(), free_port()
    url = f"http://127.0.0.1:{http_port}/"
    bluedot = subprocess.Popen([args.bluedot, "run", "--gpsd", f"127.0.0.1:{gpsd_port}", "--venue", venue,
                                "--listen", f"127.0.0.1:{http_port}", "--history", "off"],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(scratch, "bluedot.log"), "w"))
    gpsfake = None

    def check(driver, report):
        nonlocal gpsfake
        if not wait_http(url, 30):
            report["error"] = "bluedot run did not serve its page"
            return
        driver.get(url)
        time.sleep(1.5)
        # gpsd replays the turning vehicle; bluedot reconnects to it within its 2 s retry.
        gpsfake = subprocess.Popen(["gpsfake", "-1", "-p", "-q", "-W", "2", "-c", args.cycle, "-P", str(gpsd_port),
                                    args.log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        compass_on = False
        samples = []
        while time.time() < deadline and gpsfake.poll() is None:
            seen = driver.execute_script(
                "const b = window.bluedot; const t = b.state.targets.get('self');"
                "const button = document.querySelector('#follow [data-mode=\"compassNavigation\"]');"
                "const wedge = document.querySelector('.bd-marker .bd-wedge');"
                "return {buttonEnabled: !button.disabled, follow: b.state.follow,"
                " heading: t && t.display ? t.display.heading : null,"
                " settled: performance.now() - b.turn.changedAt > 1200, shown: b.shownRotation(),"
                " wedge: wedge ? getComputedStyle(wedge).transform : null,"
                " wedgeShown: wedge ? getComputedStyle(wedge).display !== 'none' : false,"
                " source: document.getElementById('info-source').textContent};")
            if seen["buttonEnabled"] and not compass_on:
                driver.execute_script("document.querySelector('#follow [data-mode=\"compassNavigation\"]').click();")
                compass_on = True
            elif compass_on and seen["heading"] is not None:
                samples.append(seen)
            time.sleep(0.3)
        report["compassEnabled"] = compass_on
        settled = [s for s in samples if s["settled"] and s["follow"] == "compassNavigation"]

        def off(a, b):
            return abs(((a - b) % 360 + 540) % 360 - 180)

        errors = [off(s["shown"], -s["heading"]) for s in settled]
        headings = sorted({round(s["heading"], 1) for s in settled})
        report["headings"] = headings
        report["worstRotationError"] = max(errors) if errors else None
        report["settledSamples"] = len(settled)
        wedge_ok = []
        for s in settled:
            if s["wedge"] and s["wedge"].startswith("matrix("):
                a, b = [float(v) for v in s["wedge"][7:-1].split(",")[:2]]
                import math
                wedge_ok.append(s["wedgeShown"] and off(math.degrees(math.atan2(b, a)), s["heading"]) <= 1)
        report["wedgeOk"] = bool(wedge_ok) and all(wedge_ok)
        report["source"] = samples[-1]["source"] if samples else None
        if args.screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
            driver.save_screenshot(args.screenshot)
        # What the gateway counted of gpsd, for Prometheus: it connected (after retrying while gpsfake was not yet
        # up), took fixes and headings, and found no malformed line in gpsd's own output.
        time.sleep(2.5)  # the housekeeping tick that copies the counts runs every second
        with urllib.request.urlopen(url + "metrics", timeout=5) as reply:
            samples_text = reply.read().decode()
        metrics = {line.split()[0]: float(line.split()[1]) for line in samples_text.splitlines()
                   if line.startswith("bluedot_gpsd_")}
        report["metrics"] = metrics
        metrics_ok = (metrics.get("bluedot_gpsd_fixes_total", 0) > 0
                      and metrics.get("bluedot_gpsd_headings_total", 0) >= args.turns
                      and metrics.get("bluedot_gpsd_reconnects_total", 0) >= 1
                      and metrics.get("bluedot_gpsd_malformed_lines_total", -1) == 0
                      and "bluedot_gpsd_connected" in metrics)
        report["ok"] = (compass_on and len(headings) >= args.turns and bool(errors) and max(errors) <= 1
                        and report["wedgeOk"] and report["source"] == "GNSS (gpsd)" and metrics_ok)

    try:
        return chromium.run_check(args, check)
    finally:
        chromium.stop_processes((gpsfake, bluedot))


if __name__ == "__main__":
    raise SystemExit(main())
