"""Debian's headless chromium through chromium-driver and selenium, as the browser checks start it."""
import os
import signal
import subprocess
import sys


def stop_on_sigterm() -> None:
    """SIGTERM ends the check through its `finally` blocks, which quit the browser (chromedriver and chromium) and
    stop every process the check started: a check stopped by its test does not leave them running. A launcher may
    hand down a mask blocking signals (Foundation's Process on Linux does): they are unblocked first."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(128 + signal.SIGTERM))


def add_arguments(parser) -> None:
    """The `--chromedriver` and `--chromium` options every check takes (environment defaults as Tools/dev sets)."""
    parser.add_argument("--chromedriver", default=os.environ.get("BLUEDOT_CHROMEDRIVER", "/usr/bin/chromedriver"))
    parser.add_argument("--chromium", default=os.environ.get("BLUEDOT_CHROMIUM", "/usr/bin/chromium"))


def start(args, logs: bool = False):
    """A headless 1280x800 chromium driven by selenium; raises when the browser cannot start here. With `logs`,
    chromedriver keeps the console (`driver.get_log("browser")`) and the network events (`"performance"`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    if logs:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)


def stop_processes(processes) -> None:
    """Stops each process still running, in order: SIGINT (the daemons' graceful stop), then SIGKILL after 10 s.
    None entries (a process that never started) are skipped."""
    for process in processes:
        if process is None or process.poll() is not None:
            continue
        process.send_signal(signal.SIGINT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_check(args, check) -> int:
    """Starts the browser, runs `check(driver, report)` (which fills the report dict and sets report["ok"]), prints
    the report as one JSON line; exit status 0 on pass, 1 on failure, 2 when the browser cannot start."""
    import json

    stop_on_sigterm()
    try:
        driver = start(args)
    except Exception as error:  # the browser is missing or cannot start here
        print(json.dumps({"ok": False, "error": f"cannot start chromium: {error}"}))
        return 2
    report = {"ok": False, "url": getattr(args, "url", None)}
    try:
        driver.set_page_load_timeout(30)
        check(driver, report)
    except Exception as error:
        report["ok"] = False
        report["error"] = str(error)
    finally:
        driver.quit()
    print(json.dumps(report))
    return 0 if report["ok"] else 1
