"""Debian's headless chromium through chromium-driver and selenium, as the browser checks start it."""
import os


def add_arguments(parser) -> None:
    """The `--chromedriver` and `--chromium` options every check takes (environment defaults as Tools/dev sets)."""
    parser.add_argument("--chromedriver", default=os.environ.get("BLUEDOT_CHROMEDRIVER", "/usr/bin/chromedriver"))
    parser.add_argument("--chromium", default=os.environ.get("BLUEDOT_CHROMIUM", "/usr/bin/chromium"))


def start(args):
    """A headless 1280x800 chromium driven by selenium; raises when the browser cannot start here."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
