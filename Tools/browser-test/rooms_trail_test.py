#!/usr/bin/env python3
"""Real-browser check of the map's rooms and trail, driven by GatewayTests (BrowserTests.swift).

Loads the page of a running `bluedot demo` (its venue has rooms, its history is in memory) in Debian's headless
chromium (through chromium-driver and selenium) and checks:
- rooms: the floor's room outlines are drawn, and within `--seconds` some room's label shows an occupant, each label
  agreeing with GET /api/rooms at the time it is read;
- trail: with Trail on for the followed target (self), the trail line gets at least `--trail-points` fixes from
  GET /api/history; moving the time slider back to its middle shows fewer, and the label names that time.
Prints one JSON line with what it saw; exit 0 on pass, 1 on failure, 2 when the browser cannot start.

    rooms_trail_test.py --url http://127.0.0.1:8080/ [--seconds 30] [--trail-points 5] [--screenshot PATH]
"""
import argparse
import json
import os
import time
import urllib.request

import chromium


def api(url: str, path: str):
    with urllib.request.urlopen(url.rstrip("/") + path, timeout=5) as response:
        return json.loads(response.read())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--trail-points", type=int, default=5)
    parser.add_argument("--screenshot")
    chromium.add_arguments(parser)
    args = parser.parse_args()

    def check(driver, report):
        driver.get(args.url)
        deadline = time.time() + args.seconds
        # Rooms: outlines on the shown floor, and a label with an occupant that the API confirms.
        rooms_ok = False
        while time.time() < deadline and not rooms_ok:
            shown = driver.execute_script(
                "return window.bluedot ? {occupancy: window.bluedot.roomOccupancy(),"
                " outlines: document.querySelectorAll('path.bd-room').length,"
                " occupied: document.querySelectorAll('path.bd-room.bd-room-occupied').length} : null;")
            if shown:
                report["rooms"] = shown
                served = {room["id"]: room["occupancy"] for room in api(args.url, "/api/rooms")}
                report["apiRooms"] = served
                busy = [room for room, count in shown["occupancy"].items() if count > 0]
                rooms_ok = (shown["outlines"] > 0 and bool(busy) and shown["occupied"] > 0
                            and all(served.get(room) == count for room, count in shown["occupancy"].items()))
            if not rooms_ok:
                time.sleep(0.5)
        report["roomsOk"] = rooms_ok
        # Trail: on for the followed target; the line grows from the history.
        driver.execute_script("document.getElementById('trail-toggle').click();")
        trail = {}
        while time.time() < deadline + 20:
            trail = driver.execute_script("return window.bluedot.trailShown();")
            if trail["points"] >= args.trail_points:
                break
            time.sleep(0.5)
        report["trail"] = trail
        # Back to the middle of the slider: fewer points, the label names the time.
        back = driver.execute_script(
            "const s = document.getElementById('trail-time');"
            "s.value = String((Number(s.min) + Number(s.max)) / 2);"
            "s.dispatchEvent(new Event('input'));"
            "return {shown: window.bluedot.trailShown(), label: document.getElementById('trail-label').textContent,"
            " min: Number(s.min), max: Number(s.max)};")
        report["trailBack"] = back
        if args.screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
            driver.save_screenshot(args.screenshot)
        trail_ok = (trail.get("on") and trail.get("points", 0) >= args.trail_points
                    and back["shown"]["points"] < trail["points"] and "UTC" in back["label"])
        report["trailOk"] = bool(trail_ok)
        report["ok"] = rooms_ok and bool(trail_ok)

    return chromium.run_check(args, check)


if __name__ == "__main__":
    raise SystemExit(main())
