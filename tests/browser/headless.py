"""Headless Chromium for the page tests: a fresh profile, no network (every host name fails to resolve),
the browser console kept for the checks that nothing went wrong."""
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(chromium, chromedriver, size="1200,1000"):
    """(driver, profile folder): the caller quits the driver and removes the profile."""
    profile = tempfile.mkdtemp(prefix="attn-chromium-")
    o = webdriver.ChromeOptions()
    o.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=" + size,
                "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile, "--disable-dev-shm-usage"):
        o.add_argument(arg)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(chromedriver), options=o), profile
