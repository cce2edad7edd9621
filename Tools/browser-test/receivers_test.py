#!/usr/bin/env python3
"""Real-browser check of a site solver's map, driven by IntegrationTests (SiteProcessTests.swift).

Loads the page of a running solver in Debian's headless chromium (through chromium-driver and selenium) and waits
until the anchors are marked as the site's receivers are: at least `--online` anchors with the `bd-online` class
and exactly `--offline` with `bd-offline` (the page polls /api/receivers every 3 s), and the tooltip of an online
anchor names its rate. Prints one JSON line with what it saw; exit 0 on pass, 1 on failure, 2 when the browser
cannot start.

    receivers_test.py --url http://127.0.0.1:8080/ --online 3 --offline 1 [--seconds 20]
"""
import argparse
import time

import chromium


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--online", type=int, required=True)
    parser.add_argument("--offline", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=20.0)
    chromium.add_arguments(parser)
    args = parser.parse_args()

    def check(driver, report):
        driver.get(args.url)
        deadline = time.time() + args.seconds
        while time.time() < deadline:
            seen = driver.execute_script(
                "const on = document.querySelectorAll('.bd-anchor.bd-online').length;"
                "const off = document.querySelectorAll('.bd-anchor.bd-offline').length;"
                "const name = document.getElementById('venue-name');"
                "return {online: on, offline: off, summary: name ? name.title : ''};")
            report.update(seen)
            if seen["online"] >= args.online and seen["offline"] == args.offline:
                break
            time.sleep(0.5)
        # The tooltip of an online anchor: hover it and read the rate Leaflet shows.
        tip = driver.execute_script(
            "const a = document.querySelector('.bd-anchor.bd-online');"
            "if (!a) return '';"
            "a.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));"
            "const tips = Array.from(document.querySelectorAll('.leaflet-tooltip')).map((t) => t.textContent);"
            "return tips.find((t) => t.includes('/s')) || '';")
        report["tooltip"] = tip
        report["ok"] = (report.get("online", 0) >= args.online and report.get("offline", -1) == args.offline
                        and "online" in tip and "/s" in tip)

    return chromium.run_check(args, check)


if __name__ == "__main__":
    raise SystemExit(main())
