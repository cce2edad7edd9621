#!/usr/bin/env python3
"""Real-browser check of the set-up page (/setup): a fresh venue set up through the page as a user would.

Given a running gateway started editable with a venue path that does not exist yet, replaying the BOUN track in
tag mode:

    bluedot run --mode tag --editable --venue DIR/venue.json --devices DIR/devices.json \\
        --observations Sources/Gateway/Demo/boun-straight_01.observations.jsonl --loop --listen 127.0.0.1:0

it drives the page in Debian's headless chromium (through chromium-driver and selenium) with clicks and typing:
- uploads `--plan` and scales it by two clicks on its left and right edges and the typed width (`--plan-width`);
- places `--anchors` receivers picked from the heard list where `--venue-reference` has them (the pixel to click
  comes from the page's own metres -> pixels conversion, `window.bluedotSetup.clientPoint`);
- draws a room of 4 corners (the first clicked off the plan's corner: it must snap there) closed by clicking its
  first corner, and a second one closed with Finish and ticked as an exit;
- saves, then checks GET /api/venue (the map's document) has those anchors (within 0.3 m), rooms and the exit,
  that a reload shows them again, and that GET /api/locations, empty before the save, gives a fix within
  `--fix-seconds` of it;
- turns the accuracy map on: cells are drawn (on the canvas too) and the p50 / p90 shown are GET
  /api/setup/accuracy's;
- adds a device with a bad IRK (31 hex digits), saves the devices and checks the error is shown beside that field;
- the quick calibration: removes that device, enrols the replay's tag (`--tag`, which the observation file names
  as-is) and saves the devices; once the heard list has it as a device, picks it as the one carried, sets the
  recording to `--survey-seconds`, records 3 places by Record here and a click on the plan each, fits and applies;
  then GET /api/venue/file must have the fitted anchors with `calibration.source == "survey"` and the fit's values,
  and the accuracy map is drawn again from the calibrated venue;
- reports the clicks the page counted (in all, to save the venue, and to calibrate) and the page's weight
  (setup.html + setup.js + setup.css as served).
Prints one JSON line with what it saw; exit 0 on pass, 1 on failure, 2 when the browser cannot start.

    setup_test.py --url http://127.0.0.1:8080/ --plan Tools/browser-test/setup-plan.png \\
        --venue-reference Sources/Gateway/Demo/demo-lab.venue.json [--token T] [--screenshot PATH]

setup-plan.png is Sources/Gateway/Demo/lab-floor0.svg (2066 x 1764, 20.66 m wide) rendered at half size by
chromium, from an HTML file holding only `<img src="file:///.../lab-floor0.svg" width="1033" height="882">` in a
body with no margin:

    chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1033,882 \\
        --screenshot=setup-plan.png file:///tmp/wrap.html
"""
import argparse
import json
import math
import os
import time
import urllib.error
import urllib.request

import chromium

BAD_IRK = "ec0234a357c8ad05341010a60a397d9"  # 31 hex digits
TAG = "e78f135624ce"  # the BOUN replay's tag, named as-is by the observation file
SURVEY_PLACES = [[4.0, 3.0], [16.5, 4.0], [11.0, 13.5], [3.5, 12.5], [17.0, 14.0], [6.0, 8.0]]  # tried in order
ROOMS = [  # name, corners (the demo lab's workshop and server room), exit
    ("Workshop", [[0.0, 0.0], [6.2, 0.0], [6.2, 5.4], [0.0, 5.4]], False),
    ("Server room", [[14.46, 0.0], [20.66, 0.0], [20.66, 5.4], [14.46, 5.4]], True),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--plan", required=True, help="the floor plan PNG to upload")
    parser.add_argument("--plan-width", type=float, default=20.66, help="the plan's real width, metres")
    parser.add_argument("--venue-reference", required=True, help="a venue file with the receivers' real positions")
    parser.add_argument("--anchors", type=int, default=4, help="how many heard receivers to place")
    parser.add_argument("--tolerance", type=float, default=0.3, help="metres an anchor may be off its reference")
    parser.add_argument("--fix-seconds", type=float, default=30.0)
    parser.add_argument("--tag", default=TAG, help="the device carried for the quick calibration")
    parser.add_argument("--survey-seconds", type=int, default=3, help="how long each place records")
    parser.add_argument("--token")
    parser.add_argument("--screenshot")
    chromium.add_arguments(parser)
    args = parser.parse_args()
    base = args.url.rstrip("/")

    def fetch(path: str):
        request = urllib.request.Request(base + path)
        if args.token:
            request.add_header("Authorization", "Bearer " + args.token)
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.read()

    def check(driver, report):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.support.ui import Select

        page = lambda script: driver.execute_script("return window.bluedotSetup." + script)  # noqa: E731

        def wait(condition, seconds=10.0, what="the page"):
            deadline = time.time() + seconds
            while time.time() < deadline:
                value = condition()
                if value:
                    return value
                time.sleep(0.2)
            raise AssertionError(f"timed out waiting for {what}")

        def click(element_id):
            driver.find_element(By.ID, element_id).click()

        def type_into(element_id, text, enter=False):
            field = driver.find_element(By.ID, element_id)
            field.click()
            field.clear()
            field.send_keys(text + (Keys.ENTER if enter else ""))

        def click_plan(x, y):
            """A click on the map where venue point (x, y) is, found by the page's metres -> pixels conversion."""
            at = page(f"clientPoint({x}, {y})")
            box = driver.execute_script("return document.getElementById('map').getBoundingClientRect().toJSON();")
            if not (box["left"] <= at["x"] < box["right"] and box["top"] <= at["y"] < box["bottom"]):
                raise AssertionError(f"venue point {x}, {y} is off the map at {at}")
            actions = ActionChains(driver)
            actions.w3c_actions.pointer_action.move_to_location(round(at["x"]), round(at["y"]))
            actions.w3c_actions.pointer_action.click()
            actions.perform()

        def load():
            hash_part = "#token=" + args.token if args.token else ""
            driver.get(base + "/setup" + hash_part)
            wait(lambda: driver.execute_script("return !!(window.bluedotSetup && window.bluedotSetup.ready());"),
                 what="the page to load")
            error = driver.find_element(By.ID, "setup-error")
            if error.is_displayed():
                raise AssertionError("page error: " + error.text)

        reference = {a["id"]: a for a in json.load(open(args.venue_reference))["anchors"]}
        load()
        if not page("editable()"):
            raise AssertionError("the gateway is not editable")

        # The plan: upload, then scale by its left and right edges at mid-height and its real width.
        driver.find_element(By.ID, "plan-file").send_keys(os.path.abspath(args.plan))
        wait(lambda: page("counts().plan"), what="the plan to show")
        (x0, y0), (x1, y1) = page("venue().floors[0].plan.bounds")
        click("plan-scale")
        click_plan(x0, (y0 + y1) / 2)
        click_plan(x1, (y0 + y1) / 2)
        type_into("scale-distance", f"{args.plan_width}", enter=True)
        (x0, y0), (x1, y1) = page("venue().floors[0].plan.bounds")
        report["planBounds"] = [[x0, y0], [x1, y1]]
        scaled = abs((x1 - x0) - args.plan_width) < 0.01 * args.plan_width and [x0, y0] == [0, 0]

        # Anchors: the strongest heard receivers that the reference places, each picked and then clicked on the plan.
        def known_heard():
            ids = [h["id"] for h in page("heard().heard") if h["id"] in reference]
            return ids[:args.anchors] if len(ids) >= args.anchors else None

        heard = wait(known_heard, seconds=20, what=f"{args.anchors} known receivers heard")
        report["strangers"] = page("heard().strangers")
        for anchor_id in heard:
            driver.find_element(By.CSS_SELECTOR, f'#heard li[data-id="{anchor_id}"]').click()
            if page("selected()") != anchor_id:
                raise AssertionError(f"picking {anchor_id} selected {page('selected()')}")
            click_plan(reference[anchor_id]["x"], reference[anchor_id]["y"])
        placed = {a["id"]: [a["x"], a["y"]] for a in page("venue().anchors")}
        report["placed"] = placed

        # Rooms: the first closed by clicking its first corner (clicked 0.15 m off the plan's corner: it snaps),
        # the second by Finish, and ticked as an exit.
        for index, (name, corners, exit_) in enumerate(ROOMS):
            click("room-draw")
            for n, (x, y) in enumerate(corners):
                click_plan(x + 0.15, y + 0.1) if index == 0 and n == 0 else click_plan(x, y)
            if index == 0:
                click_plan(corners[0][0], corners[0][1])
            else:
                click("room-finish")
            if page("mode()") != "room-name":
                raise AssertionError(f"room {name} not closed: mode {page('mode()')}, corners {page('pending()')}")
            if exit_:
                type_into("room-name", name)
                click("room-exit")
                click("room-add")
            else:
                type_into("room-name", name, enter=True)
        rooms_drawn = page("venue().rooms")
        report["roomsDrawn"] = {r["id"]: r["polygon"] for r in rooms_drawn}
        snapped = bool(rooms_drawn) and rooms_drawn[0]["polygon"][0] == [0, 0]

        # Save; the map's document then has them. Positioning begins with the save: no fix before it.
        report["fixesBeforeSave"] = fixes_before = len(json.loads(fetch("/api/locations")))
        click("venue-save")
        wait(lambda: "saved" in driver.find_element(By.ID, "status").text, what="the venue to save")
        saved_at = time.time()
        served = json.loads(fetch("/api/venue"))
        errors = {}
        for anchor_id in heard:
            got = next((a for a in served["anchors"] if a["id"] == anchor_id), None)
            ref = reference[anchor_id]
            errors[anchor_id] = round(math.hypot(got["x"] - ref["x"], got["y"] - ref["y"]), 3) if got else None
        report["anchorErrors"] = errors
        anchors_ok = all(e is not None and e <= args.tolerance for e in errors.values())
        served_rooms = {r["id"]: r for r in served.get("rooms", [])}
        report["servedRooms"] = {room_id: {"exit": r.get("exit", False), "corners": len(r["polygon"])}
                                 for room_id, r in served_rooms.items()}
        rooms_ok = (set(served_rooms) == {"workshop", "server-room"} and served_rooms["server-room"].get("exit") is True
                    and not served_rooms["workshop"].get("exit", False)
                    and all(len(r["polygon"]) == 4 for r in served_rooms.values()))

        # A reload shows them again (the page counts clicks per load: the count so far is kept here).
        report["clicksToSave"] = clicks_before = page("clicks()")
        load()
        shown = page("counts()")
        report["reloaded"] = shown
        reload_ok = (shown["plan"] and shown["markers"] == len(heard) and shown["roomShapes"] == 2
                     and len(driver.find_elements(By.CSS_SELECTOR, "#anchors-table tbody tr")) == len(heard)
                     and len(driver.find_elements(By.CSS_SELECTOR, "#rooms-table tbody tr")) == 2
                     and driver.find_element(By.ID, "room-1-exit").is_selected())

        # Positioning began after the save: a fix within --fix-seconds.
        fix = None
        while time.time() < saved_at + args.fix_seconds and not fix:
            fix = next((f for f in json.loads(fetch("/api/locations")) if isinstance(f.get("x"), (int, float))), None)
            if not fix:
                time.sleep(0.5)
        report["fixAfterSeconds"] = round(time.time() - saved_at, 1) if fix else None
        report["fix"] = {k: fix.get(k) for k in ("target", "x", "y", "horizontalAccuracy", "anchors")} if fix else None

        # The accuracy map of the saved venue: cells drawn on the canvas, and the figures the server gives.
        click("accuracy-toggle")
        shown_map = wait(lambda: (lambda a: a if a and a["cells"] else None)(page("accuracy()")), seconds=15,
                         what="the accuracy map")
        served_map = json.loads(fetch("/api/setup/accuracy?floor=0"))
        cells = [c for c in served_map["points"] if isinstance(c.get("x"), (int, float))]
        painted = driver.execute_script(
            "const c = document.querySelector('.leaflet-bd-accuracy-pane canvas'); if (!c) return 0;"
            " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;"
            " for (let i = 3; i < d.length; i += 16) if (d[i] > 0) n += 1; return n;")
        legend = driver.find_elements(By.ID, "accuracy-legend")
        figures = driver.find_element(By.ID, "accuracy-figures").text
        report["accuracyMap"] = {
            "p50": served_map["p50"], "p90": served_map["p90"], "cellMeters": served_map["cellMeters"],
            "cells": shown_map["cells"], "servedCells": len(cells),
            "noFix": sum(1 for c in cells if c.get("crlb") is None), "paintedPixels": painted,
            "suggestion": served_map.get("suggestion"), "shown": figures}
        accuracy_ok = (shown_map["cells"] == len(cells) > 0 and painted > 0 and bool(legend)
                       and legend[0].is_displayed() and shown_map["p50"] == served_map["p50"]
                       and shown_map["p90"] == served_map["p90"]
                       and f"{round(served_map['p50'], 1):g} m" in figures and f"{round(served_map['p90'], 1):g} m" in figures
                       and (served_map.get("suggestion") is None) == (page("counts().suggestion") == 0))

        # A bad IRK: the error is shown beside that field.
        click("device-add")
        row = page("counts().devices") - 1
        type_into(f"device-{row}-id", "alice-phone")
        type_into(f"device-{row}-name", "Alice's phone")
        type_into(f"device-{row}-irk", BAD_IRK)
        click("devices-save")
        irk_field = f"device-{row}-irk"
        wait(lambda: "bd-field-error" in driver.find_element(By.ID, irk_field).get_attribute("class"),
             what="the IRK error")
        message = driver.execute_script(
            f"const m = document.getElementById('{irk_field}').nextElementSibling;"
            " return m && m.classList.contains('bd-error-message') ? m.textContent : null;")
        report["irkError"] = message
        irk_ok = bool(message) and "irk" in message

        # The quick calibration. First the tag carried is enrolled (the bad device removed), and heard as a device.
        clicks_at = page("clicks()")
        click(f"device-{row}-remove")
        click("device-add")
        row = page("counts().devices") - 1
        type_into(f"device-{row}-id", args.tag)
        type_into(f"device-{row}-name", "BOUN tag")
        click("devices-save")
        # Saved when the gateway serves it (the page's status line may already say something newer).
        wait(lambda: any(d.get("id") == args.tag for d in json.loads(fetch("/api/devices")).get("devices", [])),
             what="the devices to save")
        wait(lambda: any(h["id"] == args.tag and h["kind"] == "device" for h in page("heard().heard")), seconds=20,
             what=f"{args.tag} heard as a device")
        wait(lambda: driver.find_element(By.ID, "survey-target-row").is_displayed(), what="the survey's device list")
        if page("survey().target") != args.tag:
            Select(driver.find_element(By.ID, "survey-target")).select_by_value(args.tag)
        report["clicksToEnrol"] = page("clicks()") - clicks_at
        type_into("survey-seconds", str(args.survey_seconds))
        clicks_at = page("clicks()")
        # Three places of the plan, clear of the markers (anchors, the suggestion) that would take the click.
        taken = [[a["x"], a["y"]] for a in page("venue().anchors")]
        if served_map.get("suggestion"):
            taken.append([served_map["suggestion"]["x"], served_map["suggestion"]["y"]])
        places = [p for p in SURVEY_PLACES if all(math.hypot(p[0] - t[0], p[1] - t[1]) > 1.0 for t in taken)][:3]
        for n, (x, y) in enumerate(places):
            click("survey-record")
            click_plan(x, y)
            wait(lambda: page("survey().recording"), seconds=3, what="the recording to start")
            countdown = driver.find_element(By.ID, "survey-countdown").text
            wait(lambda: not page("survey().recording") and len(page("survey().points")) == n + 1,
                 seconds=args.survey_seconds + 10, what=f"place {n + 1} to be recorded")
            if page("survey().error"):
                raise AssertionError("survey: " + page("survey().error"))
            if n == 0:
                report["countdownShown"] = countdown
        points = page("survey().points")
        report["surveyPoints"] = [{k: p.get(k) for k in ("x", "y", "samples", "anchors")} for p in points]
        served_points = json.loads(fetch("/api/setup/survey"))["points"]
        survey_ok = (len(points) == 3 and len(served_points) == 3 and page("counts().surveyMarkers") == 3
                     and all(p["samples"] > 0 and p["anchors"] >= 2 for p in points)
                     and all(abs(p["x"] - q[0]) < 0.05 and abs(p["y"] - q[1]) < 0.05 for p, q in zip(points, places))
                     and "hold still" in report.get("countdownShown", ""))

        # Fit, then Apply (which saves the venue): the venue file has the fitted models.
        wait(lambda: driver.find_element(By.ID, "survey-fit").is_enabled(), what="Fit to be enabled")
        click("survey-fit")
        fit = wait(lambda: page("fit()") or page("survey().error"), seconds=15, what="the fit")
        if isinstance(fit, str):
            raise AssertionError("fit: " + fit)
        click("survey-apply")
        wait(lambda: "calibration applied" in driver.find_element(By.ID, "status").text, seconds=15,
             what="the calibration to be applied and saved")
        report["clicksToCalibrate"] = page("clicks()") - clicks_at
        fitted = {a["id"]: a for a in fit["venue"]["anchors"]}
        saved_file = json.loads(fetch("/api/venue/file"))
        report["fitted"] = {}
        fit_ok = bool(saved_file["anchors"])
        for anchor in saved_file["anchors"]:
            source = fitted.get(anchor["id"], {})
            result = fit["anchors"].get(anchor["id"], {})
            report["fitted"][anchor["id"]] = {
                "measuredPower": anchor.get("measuredPower"), "pathLossExponent": anchor.get("pathLossExponent"),
                "shadowingSigma": anchor.get("shadowingSigma"), "flags": result.get("flags"),
                "source": (anchor.get("calibration") or {}).get("source")}
            fit_ok = fit_ok and (anchor.get("calibration") or {}).get("source") == "survey" and all(
                anchor.get(k) == source.get(k) for k in ("measuredPower", "pathLossExponent", "shadowingSigma"))
        report["fitPoints"], report["fitSamples"] = fit.get("points"), fit.get("samples")
        after = page("accuracy()")
        served_after = json.loads(fetch("/api/setup/accuracy?floor=0"))
        report["accuracyAfterFit"] = {"p50": served_after["p50"], "p90": served_after["p90"],
                                      "shownP90": after and after["p90"]}
        accuracy_ok = accuracy_ok and bool(after) and after["p90"] == served_after["p90"] and after["cells"] > 0

        report["clicks"] = clicks_before + page("clicks()")
        # Everything the page loaded came from the gateway: nothing from the network.
        loaded = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
        report["externalRequests"] = [u for u in loaded if not u.startswith(base)]
        # The map, open in another tab, draws a venue saved meanwhile at once (the feed's `venue` event): here the
        # venue as the page saved it, less its last room, saved over HTTP.
        driver.switch_to.new_window("tab")
        driver.get(base + "/" + ("#token=" + args.token if args.token else ""))
        wait(lambda: driver.execute_script("return window.bluedot && window.bluedot.state.venue ? 1 : 0"),
             what="the map's venue")
        wait(lambda: driver.execute_script("return window.bluedot.state.connected"), what="the map's feed")
        rooms_before = driver.execute_script("return window.bluedot.state.venue.rooms.length")
        edited = json.loads(fetch("/api/venue/file"))
        edited["rooms"] = edited["rooms"][:-1]
        request = urllib.request.Request(base + "/api/venue", data=json.dumps(edited).encode(), method="PUT")
        if args.token:
            request.add_header("Authorization", "Bearer " + args.token)
        urllib.request.urlopen(request, timeout=5).read()
        wait(lambda: driver.execute_script("return window.bluedot.state.venueReloads || 0") >= 1,
             what="the map to draw the saved venue")
        rooms_after = driver.execute_script("return window.bluedot.state.venue.rooms.length")
        report["mapRooms"] = [rooms_before, rooms_after]
        map_ok = rooms_after == rooms_before - 1
        driver.close()
        driver.switch_to.window(driver.window_handles[0])
        report["pageBytes"] = sum(len(fetch(path)) for path in ("/setup.html", "/setup.js", "/setup.css"))
        if args.screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
            driver.save_screenshot(args.screenshot)
        report["checks"] = {
            "local": not report["externalRequests"], "mapFollows": map_ok, "scaled": scaled, "snapped": snapped,
            "anchors": anchors_ok, "rooms": rooms_ok, "reload": bool(reload_ok),
            "fix": bool(fix) and fixes_before == 0, "irk": irk_ok, "accuracyMap": bool(accuracy_ok),
            "survey": bool(survey_ok), "fit": bool(fit_ok)}
        report["ok"] = all(report["checks"].values())

    return chromium.run_check(args, check)


if __name__ == "__main__":
    raise SystemExit(main())
