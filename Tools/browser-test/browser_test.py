#!/usr/bin/env python3
"""Real-browser check of the BlueDot web map, driven by GatewayTests (BrowserTests.swift).

Loads the page of a running gateway in Debian's headless chromium (through chromium-driver and selenium),
waits for the venue and the feed, turns follow off so that the map stays put, and samples the self dot's
marker on the screen and on the plan for a few seconds. Passes when the marker moved on the screen and the
plan position changed; saves a screenshot either way. Prints one JSON line with what it saw; exit 0 on pass,
1 on failure, 2 when the browser cannot start.

    browser_test.py --url http://127.0.0.1:8080/ --screenshot .build/screenshots/demo.png [--seconds 6]
"""
import argparse
import json
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--chromedriver", default=os.environ.get("BLUEDOT_CHROMEDRIVER", "/usr/bin/chromedriver"))
    parser.add_argument("--chromium", default=os.environ.get("BLUEDOT_CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
    except Exception as error:  # the browser is missing or cannot start here
        print(json.dumps({"ok": False, "error": f"cannot start chromium: {error}"}))
        return 2

    report = {"ok": False, "url": args.url}
    try:
        driver.set_page_load_timeout(30)
        driver.get(args.url)
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
        driver.find_element(By.CSS_SELECTOR, '#follow button[data-mode="off"]').click()
        time.sleep(0.8)  # let a pan in flight finish
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
        labels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".bd-label")]
        report.update({
            "samples": len(samples), "movedPixels": round(moved_px, 1), "movedMeters": round(moved_m, 2),
            "events": samples[-1]["events"], "tagLabels": labels,
            "floors": [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#floors button")],
            "anchors": len(driver.find_elements(By.CSS_SELECTOR, ".bd-anchor")),
            "status": driver.find_element(By.ID, "status").text,
            "follow": driver.execute_script("return window.bluedot.state.follow"),
        })
        report["ok"] = moved_px >= 3 and moved_m >= 0.2 and report["status"] == "live"
        return 0 if report["ok"] else 1
    finally:
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        driver.save_screenshot(args.screenshot)
        report["screenshot"] = os.path.abspath(args.screenshot)
        print(json.dumps(report))
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
