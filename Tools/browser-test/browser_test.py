#!/usr/bin/env python3
"""Real-browser check of the BlueDot web map, driven by GatewayTests (BrowserTests.swift).

Loads the page of a running gateway in Debian's headless chromium (through chromium-driver and selenium), first with
the feed blocked: before any fix the map's view must hold the venue's whole extent (bounds, plans, anchors, rooms,
from /api/venue) and be fitted to it, and the first fixes must keep that zoom. It waits for the feed, reads the info
panel's source (`beacons` on the demo), checks navigation follow pins the dot (centre, 0.125 of the height up from the
bottom) and turns the map by the display engine's navigation rotation once the dot moves (the map wrapper's shown
rotation is minus the engine's `navigationRotation` and minus the course arrow's plan direction, within 1 degree, so
the walk points up; tag labels stay upright), saves a screenshot of navigation, drags the map (which must turn follow
off and the map back to 0 degrees, so the map stays put), and samples the self dot's marker on the screen and on the
plan for a few seconds. Passes when all of that holds and the marker moved on the screen and the plan position
changed. Last, the page's icon: its link and `/favicon.ico` answer with the SVG, and neither the console nor the
network log holds a 404. Saves a screenshot either way. Prints one JSON line with what it saw; exit 0 on pass, 1 on
failure, 2 when the browser cannot start.

    browser_test.py --url http://127.0.0.1:8080/ --screenshot .build/screenshots/demo.png \
        --navigation-screenshot .build/screenshots/navigation.png [--seconds 6]
"""
import argparse
import json
import os
import sys
import time
import urllib.parse
import urllib.request

import chromium


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--navigation-screenshot")
    parser.add_argument("--seconds", type=float, default=6.0)
    chromium.add_arguments(parser)
    args = parser.parse_args()

    from selenium.webdriver.common.by import By

    chromium.stop_on_sigterm()
    try:
        driver = chromium.start(args, logs=True)
    except Exception as error:  # the browser is missing or cannot start here
        print(json.dumps({"ok": False, "error": f"cannot start chromium: {error}"}))
        return 2

    report = {"ok": False, "url": args.url}
    try:
        driver.set_page_load_timeout(30)
        fit = check_fit_at_load(driver, args.url)
        report["venueFit"] = fit
        deadline = time.time() + 20
        while time.time() < deadline:
            ready = driver.execute_script(
                "return !!(window.bluedot && window.bluedot.state.connected"
                " && window.bluedot.markerScreenPosition('self'))")
            if ready:
                break
            time.sleep(0.2)
        else:
            report["error"] = "no self marker within 20 s"
            report["errorBox"] = driver.find_element(By.ID, "error").text
            return 1
        # The first fixes keep the view the venue was fitted to (they may pan it, not zoom it).
        fit["zoomAfterFixes"] = driver.execute_script("return window.bluedot.map.getZoom()")
        fit["ok"] = fit["ok"] and abs(fit["zoomAfterFixes"] - fit["zoom"]) < 1e-9
        report["source"] = driver.find_element(By.ID, "info-source").text
        # Navigation follow pins the dot at the centre, 0.125 of the height up from the bottom.
        driver.find_element(By.CSS_SELECTOR, '#follow button[data-mode="navigation"]').click()
        pinned = []
        for _ in range(8):
            time.sleep(0.4)
            pinned.append(driver.execute_script("return window.bluedot.markerViewportFraction('self')"))
        report["navigationPin"] = min(pinned, key=lambda p: abs(p[0] - 0.5) + abs(p[1] - 0.875))
        turning = check_navigation_rotation(driver, args.navigation_screenshot)
        report["navigationRotation"] = turning
        # A user drag turns follow off (the display engine's rule), the map turns back to 0 degrees at once, and
        # the map then stays put.
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(driver).move_to_element(driver.find_element(By.ID, "map")).click_and_hold() \
            .move_by_offset(40, 25).release().perform()
        time.sleep(0.8)  # let a pan in flight finish
        report["followAfterDrag"] = driver.execute_script("return window.bluedot.state.follow")
        report["rotationAfterDrag"] = round(driver.execute_script("return window.bluedot.shownRotation()"), 3)
        samples = []
        end = time.time() + args.seconds
        while time.time() < end:
            samples.append(driver.execute_script(
                "return {screen: window.bluedot.markerScreenPosition('self'),"
                " plan: window.bluedot.markerPlanPosition('self'),"
                " events: window.bluedot.state.events}"))
            time.sleep(0.5)
        screens = [s["screen"] for s in samples if s["screen"]]
        plans = [s["plan"] for s in samples if s["plan"]]
        moved_px = max(abs(a["x"] - screens[0]["x"]) + abs(a["y"] - screens[0]["y"]) for a in screens)
        moved_m = max(abs(p["x"] - plans[0]["x"]) + abs(p["y"] - plans[0]["y"]) for p in plans)
        # textContent, not .text: selenium's .text is empty for a label panned out of view after the drag.
        labels = [e.get_attribute("textContent") for e in driver.find_elements(By.CSS_SELECTOR, ".bd-label")]
        report.update({
            "samples": len(samples), "movedPixels": round(moved_px, 1), "movedMeters": round(moved_m, 2),
            "events": samples[-1]["events"], "tagLabels": labels,
            "floors": [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#floors button")],
            "anchors": len(driver.find_elements(By.CSS_SELECTOR, ".bd-anchor")),
            "status": driver.find_element(By.ID, "status").text,
            "follow": driver.execute_script("return window.bluedot.state.follow"),
        })
        report["favicon"] = check_favicon(driver)
        pin = report["navigationPin"]
        report["ok"] = (fit["ok"] and report["source"] == "beacons" and report["favicon"]["ok"]
                        and moved_px >= 3 and moved_m >= 0.2 and report["status"] == "live"
                        and report["followAfterDrag"] == "off" and turning["ok"]
                        and abs(report["rotationAfterDrag"]) < 0.01
                        and abs(pin[0] - 0.5) < 0.05 and abs(pin[1] - 0.875) < 0.05)
        return 0 if report["ok"] else 1
    finally:
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        driver.save_screenshot(args.screenshot)
        report["screenshot"] = os.path.abspath(args.screenshot)
        print(json.dumps(report))
        driver.quit()


LOADED_JS = """
const b = window.bluedot;
if (!b || !b.state.venue || b.state.floor === null) return null;
const view = b.map.getBounds();
return {view: [[view.getWest(), view.getSouth()], [view.getEast(), view.getNorth()]], zoom: b.map.getZoom(),
        events: b.state.events};
"""


def venue_extent(venue: dict) -> list:
    """Everything a venue document draws, in plan metres, as [[minX, minY], [maxX, maxY]]: its bounds, every floor's
    plan, the anchors and the rooms' outlines."""
    points = list(venue["bounds"])
    for floor in venue["floors"]:
        points += floor.get("planBounds") or []
    points += [[anchor["x"], anchor["y"]] for anchor in venue["anchors"]]
    for room in venue.get("rooms", []):
        points += room["polygon"]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [[min(xs), min(ys)], [max(xs), max(ys)]]


def check_fit_at_load(driver, url: str) -> dict:
    """Loads the page with the feed blocked, so that no fix arrives, and reads the map's view once the venue is
    drawn: it must hold the venue's whole extent (read from /api/venue here, not from the page) and be fitted to it,
    the extent spanning at least 80% of the view's width or height. Lets the feed through afterwards."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/feed*"]})
    try:
        driver.get(url)
        loaded, deadline = None, time.time() + 20
        while loaded is None and time.time() < deadline:
            loaded = driver.execute_script(LOADED_JS)
            time.sleep(0.1)
    finally:
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    with urllib.request.urlopen(urllib.parse.urljoin(url, "api/venue"), timeout=10) as response:
        extent = venue_extent(json.load(response))
    if loaded is None:
        return {"ok": False, "error": "the venue was not drawn within 20 s", "extent": extent}
    (vx0, vy0), (vx1, vy1) = loaded["view"]
    (ex0, ey0), (ex1, ey1) = extent
    tolerance = 1e-6
    contains = (vx0 <= ex0 + tolerance and vy0 <= ey0 + tolerance
                and vx1 >= ex1 - tolerance and vy1 >= ey1 - tolerance)
    fill = max((ex1 - ex0) / (vx1 - vx0), (ey1 - ey0) / (vy1 - vy0))
    return {"ok": contains and fill >= 0.8 and loaded["events"] == 0, "contains": contains,
            "fill": round(fill, 3), "extent": extent, "view": [[round(v, 3) for v in p] for p in loaded["view"]],
            "zoom": loaded["zoom"], "eventsAtLoad": loaded["events"]}


FETCH_ICONS_JS = """
const done = arguments[arguments.length - 1];
const get = (url) => fetch(url).then((r) => ({url, status: r.status, type: r.headers.get('content-type'),
                                              redirected: r.redirected}));
const link = document.querySelector('link[rel="icon"]');
Promise.all([link ? get(link.getAttribute('href')) : null, get('/favicon.ico')])
  .then(([icon, ico]) => done({icon, ico}), (error) => done({error: String(error)}));
"""


def check_favicon(driver) -> dict:
    """The page's icon: the `<link rel="icon">` target and `/favicon.ico` (a redirect followed) are the SVG, and no
    request of the whole run was a 404, in the console or in the network log (chromium's own icon request
    included)."""
    fetched = driver.execute_async_script(FETCH_ICONS_JS)
    # Chromium's words for a failed load; a bare "404" also matches a port number in a logged URL (127.0.0.1:44049).
    console = [entry["message"] for entry in driver.get_log("browser") if "status of 404" in entry["message"]]
    network = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.responseReceived" and message["params"]["response"]["status"] == 404:
            network.append(message["params"]["response"]["url"])
    icons = [fetched.get("icon"), fetched.get("ico")]
    ok = (all(icon and icon["status"] == 200 and icon["type"] == "image/svg+xml" for icon in icons)
          and not console and not network)
    return {"ok": ok, **fetched, "console404": console, "network404": network}


def angle(a: float) -> float:
    """An angle in degrees, wrapped to [-180, 180)."""
    return (a + 180.0) % 360.0 - 180.0


SETTLED_JS = """
const b = window.bluedot, t = b.state.targets.get(b.state.followTarget);
const label = document.querySelector('.bd-label');
const labelMatrix = label ? new DOMMatrixReadOnly(getComputedStyle(label).transform === 'none'
  ? undefined : getComputedStyle(label).transform) : null;
return {
  sinceTurnMs: performance.now() - b.turn.changedAt, turnOn: b.turn.on, shown: b.shownRotation(),
  engine: t && t.display ? t.display.navigationRotation : null, symbol: t && t.display ? t.display.symbol : null,
  arrow: t && t.display && typeof t.display.rotation === 'number' ? t.display.rotation : null,
  course: t && t.fix ? (t.fix.course === undefined ? null : t.fix.course) : null,
  label: labelMatrix ? Math.atan2(labelMatrix.b, labelMatrix.a) * 180 / Math.PI : null,
  follow: b.state.follow,
  // Every corner of the map area shows the (turned) Leaflet container: no empty corners.
  corners: (() => {
    const v = document.getElementById('viewport').getBoundingClientRect(), map = document.getElementById('map');
    return [[v.left + 1, v.top + 1], [v.right - 2, v.top + 1], [v.left + 1, v.bottom - 2], [v.right - 2, v.bottom - 2]]
      .filter(([x, y]) => document.elementsFromPoint(x, y).includes(map)).length;
  })(),
};
"""


def check_navigation_rotation(driver, screenshot, seconds: float = 25.0) -> dict:
    """Samples the turned map once each turn has settled (its 0.5 s transition over, no newer turn): the shown
    rotation must be minus the engine's navigation rotation and, with the course arrow, minus the arrow's plan
    direction (the walk points up), within 1 degree; tag labels turn back (upright). Needs 3 settled samples
    with the course symbol, one of them turned by more than 5 degrees."""
    samples, worst_engine, worst_arrow, worst_label, turned = [], 0.0, 0.0, 0.0, False
    shot = None
    end = time.time() + seconds
    while time.time() < end:
        s = driver.execute_script(SETTLED_JS)
        if s["sinceTurnMs"] > 700 and s["engine"] is not None and s["symbol"] == "course":
            worst_engine = max(worst_engine, abs(angle(s["shown"] + s["engine"])))
            worst_arrow = max(worst_arrow, abs(angle(s["shown"] + s["arrow"])))
            if s["label"] is not None:
                worst_label = max(worst_label, abs(angle(s["shown"] + s["label"])))
            samples.append({k: (round(v, 2) if isinstance(v, float) else v) for k, v in s.items()})
            if abs(angle(s["shown"])) > 5 and not turned:
                turned = True
                if screenshot:
                    os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
                    driver.save_screenshot(screenshot)
                    shot = os.path.abspath(screenshot)
            if turned and len(samples) >= 3:
                break
        time.sleep(0.25)
    ok = bool(samples) and len(samples) >= 3 and turned and worst_engine <= 1 and worst_arrow <= 1 \
        and worst_label <= 1 and all(s["turnOn"] and s["follow"] == "navigation" and s["corners"] == 4
                                     for s in samples)
    return {"ok": ok, "settledSamples": len(samples), "turned": turned, "worstEngineError": round(worst_engine, 3),
            "worstArrowError": round(worst_arrow, 3), "worstLabelError": round(worst_label, 3),
            "last": samples[-1] if samples else None, "screenshot": shot}


if __name__ == "__main__":
    sys.exit(main())
