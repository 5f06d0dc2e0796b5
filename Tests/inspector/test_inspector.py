"""Drives the inspector in headless Chromium (Debian's chromium and chromium-driver, Selenium)
against a running `flowlog serve`, through the journeys of Tests/inspector/README.md.

    python3 Tests/inspector/test_inspector.py --base http://127.0.0.1:PORT --db LOG --flowlog BIN \
        --downloads DIR [--screenshot docs/inspector.png] [--only NAME]

The log must hold Fixtures/bugs/coupon-over-100.ndjson (imported) and then one `flowlog demo`.
Prints one line a journey and `N passed, N failed`; exits 1 if any failed.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "Fixtures")


def by(testid, extra=""):
    return (By.CSS_SELECTOR, f'[data-testid="{testid}"]{extra}')


class Journeys:
    def __init__(self, args):
        self.args = args
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900",
                         "--disable-gpu", "--no-first-run", "--no-default-browser-check"]:
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"download.default_directory": args.downloads})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": args.downloads})
        self.wait = WebDriverWait(self.driver, 15, ignored_exceptions=[StaleElementReferenceException])

    # helpers ---------------------------------------------------------------------------------
    def open(self, hash_part=""):
        self.driver.get("about:blank")
        self.driver.get(f"{self.args.base}/inspector/{hash_part}")
        self.until(lambda d: self.text("source-label").startswith(("Server log", "File")))

    def find(self, testid, extra=""):
        return self.driver.find_element(*by(testid, extra))

    def finds(self, testid, extra=""):
        return self.driver.find_elements(*by(testid, extra))

    def text(self, testid, extra=""):
        try:
            return self.find(testid, extra).text
        except Exception:
            return ""

    def until(self, condition, message="condition"):
        try:
            return self.wait.until(condition)
        except Exception as error:
            raise AssertionError(f"timed out waiting for {message}") from error

    def selected_version(self):
        try:
            return self.find("timeline-row", '[aria-selected="true"]').get_attribute("data-version")
        except Exception:
            return None

    def open_stream(self, name):
        self.open(f"#stream={name}")
        self.until(lambda d: self.text("stream-title") == name, f"stream {name} open")

    def post(self, command, headers=None):
        request = urllib.request.Request(f"{self.args.base}/commands", data=json.dumps(command).encode(),
                                         headers={"Content-Type": "application/json", **(headers or {})}, method="POST")
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    # journeys --------------------------------------------------------------------------------
    def load_the_demo_session(self):
        self.open()
        self.until(lambda d: len(self.finds("stream-item")) >= 3, "stream items")
        assert self.text("source-label") == "Server log · 35 events", self.text("source-label")
        self.find("stream-search").send_keys("demo")
        self.until(lambda d: [e.get_attribute("data-stream") for e in self.finds("stream-item")] == ["demo-1"], "one match for demo")
        self.find("stream-item", '[data-stream="demo-1"]').click()
        self.until(lambda d: self.text("stream-title") == "demo-1", "demo-1 open")
        assert self.text("stream-meta").startswith("17 events"), self.text("stream-meta")
        assert self.find("timeline-slider").get_attribute("max") == "17"
        self.until(lambda d: self.selected_version() == "17", "v17 selected")
        self.until(lambda d: "modal.dismissed" in self.text("event-details"), "modal.dismissed shown")
        self.until(lambda d: d.current_url.endswith("#stream=demo-1&v=17"), "address")
        self.driver.refresh()
        self.until(lambda d: self.text("stream-title") == "demo-1" and self.selected_version() == "17", "same step after reload")

    def step_the_timeline(self):
        self.open_stream("demo-1")
        slider = self.find("timeline-slider")
        slider.send_keys(Keys.HOME)
        self.until(lambda d: self.selected_version() == "0", "v0")
        self.until(lambda d: "Initial state" in self.text("event-details"), "initial state")
        for _ in range(12):
            self.find("timeline-slider").send_keys(Keys.ARROW_RIGHT)
        self.until(lambda d: self.selected_version() == "12", "v12")
        self.until(lambda d: "cart.checkoutStarted" in self.text("event-details"), "checkoutStarted")
        self.find("timeline-slider").send_keys(Keys.END)
        self.until(lambda d: self.selected_version() == "17", "v17")
        self.find("timeline-row", '[data-version="15"]').click()
        self.until(lambda d: self.selected_version() == "15", "v15 by click")
        self.find("timeline-list").send_keys(Keys.ARROW_LEFT)
        self.until(lambda d: self.selected_version() == "14", "v14 by arrow on the list")

    def state_panel_and_diff(self):
        self.open("#stream=demo-1&v=15")
        self.until(lambda d: self.selected_version() == "15" and "cart.orderPlaced" in self.text("event-details"), "v15")
        self.until(lambda d: self.finds("diff-item", '[data-path="orders[order-1]"][data-op="added"]'), "orders[order-1] added")
        assert self.finds("diff-item", '[data-path="cart.status"][data-op="changed"]'), "cart.status changed"
        assert any(e.get_attribute("data-op") == "removed" and e.get_attribute("data-path").startswith("cart.items[")
                   for e in self.finds("diff-item")), "cart lines removed"
        self.until(lambda d: self.text("state-order", '[data-order="order-1"]') == "order-1 · 5 items · 47.02", "order line")
        assert self.text("state-total") == "0.00", self.text("state-total")
        assert self.find("json-node", '[data-path="orders[order-1]"]').get_attribute("data-change") == "added"
        self.find("timeline-row", '[data-version="11"]').click()
        self.until(lambda d: "cart.productRemoved" in self.text("event-details") and self.text("state-total") == "47.02", "v11")
        assert self.text("state-subtotal") == "49.49", self.text("state-subtotal")
        assert "WELCOME5" in self.text("state-cart-discount"), self.text("state-cart-discount")
        assert "2" in self.text("state-line", '[data-product="p-stickers"]')
        item = self.finds("diff-item")[0]
        path = item.get_attribute("data-path")
        item.click()
        self.until(lambda d: self.finds("json-node", f'[data-path="{path}"]'), f"tree opened to {path}")
        self.find("json-search").send_keys("MUG10")
        self.until(lambda d: self.text("json-search-count") == "1 match", "1 match")
        assert len(self.driver.find_elements(By.CSS_SELECTOR, '[data-testid="json-node"][data-match]')) == 1

    def filter(self):
        self.open_stream("session-4711")
        Select(self.find("type-filter")).select_by_value("cart.productAdded")
        self.until(lambda d: [e.get_attribute("data-version") for e in self.finds("timeline-row")] == ["0", "2", "3", "6"], "productAdded rows")
        Select(self.find("type-filter")).select_by_value("")
        Select(self.find("actor-filter")).select_by_value("system")
        self.until(lambda d: [e.get_attribute("data-version") for e in self.finds("timeline-row")] == ["0", "1"], "system rows")

    def bisect(self):
        self.open_stream("session-4711")
        self.until(lambda d: len(Select(self.find("invariant-select")).options) > 1, "invariants")
        Select(self.find("invariant-select")).select_by_value("totals-non-negative")
        self.find("bisect-button").click()
        self.until(lambda d: self.find("bisect-result").get_attribute("data-state") == "found", "found")
        assert "totals-non-negative: the total is negative (-2250 cents)" in self.text("bisect-result"), self.text("bisect-result")
        self.until(lambda d: self.selected_version() == "5", "v5 selected")
        self.until(lambda d: "cart.discountApplied" in self.text("event-details") and self.text("state-total") == "-22.50", "state at v5")
        paths = {(e.get_attribute("data-path"), e.get_attribute("data-op")) for e in self.finds("diff-item")}
        assert paths == {("cart.cartDiscount", "added"), ("cart.total", "changed")}, paths
        Select(self.find("invariant-select")).select_by_value("tab-valid")
        self.find("bisect-button").click()
        self.until(lambda d: self.find("bisect-result").get_attribute("data-state") == "clean", "tab-valid clean")
        self.open_stream("demo-1")
        self.until(lambda d: len(Select(self.find("invariant-select")).options) > 1, "invariants")
        Select(self.find("invariant-select")).select_by_value("all")
        self.find("bisect-button").click()
        self.until(lambda d: self.find("bisect-result").get_attribute("data-state") == "clean", "all clean on demo-1")
        if self.args.screenshot:
            self.open("#stream=session-4711&v=5")
            self.until(lambda d: self.selected_version() == "5" and self.text("state-total") == "-22.50", "v5 for the screenshot")
            Select(self.find("invariant-select")).select_by_value("totals-non-negative")
            self.find("bisect-button").click()
            self.until(lambda d: self.find("bisect-result").get_attribute("data-state") == "found", "found")
            self.until(lambda d: self.find("inspect").get_attribute("aria-busy") != "true", "loaded")
            time.sleep(0.5)
            self.driver.save_screenshot(self.args.screenshot)

    def see_a_live_event(self):
        self.open_stream("demo-1")
        version = int(self.find("timeline-slider").get_attribute("max"))
        self.until(lambda d: self.selected_version() == str(version), "last selected")
        self.find("live-toggle").find_element(By.XPATH, "./..").click()
        self.until(lambda d: self.text("live-status") == "Live", "Live")
        self.post({"type": "home.presentModal", "stream": "demo-1"})
        self.until(lambda d: self.selected_version() == str(version + 1), "live row selected")
        assert self.find("timeline-slider").get_attribute("max") == str(version + 1)
        self.until(lambda d: "home.modalPresented" in self.text("event-details"), "modalPresented shown")
        subprocess.run([self.args.flowlog, "modal", "dismiss", "--stream", "demo-1", "--db", self.args.db], check=True, capture_output=True)
        self.until(lambda d: self.selected_version() == str(version + 2), "event of another process")
        self.until(lambda d: "modal.dismissed" in self.text("event-details"), "modal.dismissed shown")
        self.find("live-toggle").find_element(By.XPATH, "./..").click()
        self.until(lambda d: self.text("live-status") == "", "live off")
        self.post({"type": "home.presentModal", "stream": "demo-1"})
        time.sleep(1.5)
        assert self.find("timeline-slider").get_attribute("max") == str(version + 2), "no event arrives once live is off"
        self.post({"type": "modal.dismiss", "stream": "demo-1"})

    def download(self):
        target = os.path.join(self.args.downloads, "demo-1.ndjson")
        if os.path.exists(target):
            os.remove(target)
        self.open_stream("demo-1")
        self.find("download-button").click()
        self.until(lambda d: os.path.exists(target) and os.path.getsize(target) > 0, "the download")
        time.sleep(0.3)
        expected = subprocess.run([self.args.flowlog, "export", "--stream", "demo-1", "--db", self.args.db],
                                  check=True, capture_output=True).stdout
        with open(target, "rb") as downloaded:
            assert downloaded.read() == expected, "the download is byte for byte flowlog export --stream demo-1"

    def drop_a_file(self):
        path = os.path.abspath(os.path.join(FIXTURES, "bugs", "empty-checkout.ndjson"))
        self.open()
        self.find("file-input").send_keys(path)
        self.until(lambda d: self.text("source-label") == "File empty-checkout.ndjson · 1 stream · 10 events", "file label")
        assert self.find("close-session").is_displayed()
        self.until(lambda d: self.text("stream-title") == "session-1207", "first stream open")
        assert not self.find("live-toggle").is_enabled()
        assert "session=" in self.driver.current_url
        self.until(lambda d: len(Select(self.find("invariant-select")).options) > 1, "invariants")
        Select(self.find("invariant-select")).select_by_value("all")
        self.find("bisect-button").click()
        self.until(lambda d: self.find("bisect-result").get_attribute("data-state") == "found", "found")
        assert "checkout-not-empty" in self.text("bisect-result"), self.text("bisect-result")
        self.until(lambda d: self.selected_version() == "10", "v10")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        self.find("close-session").click()
        self.until(lambda d: self.text("source-label").startswith("Server log"), "back to the log")
        # A real drop, simulated in the page.
        self.driver.execute_script("""
          const transfer = new DataTransfer();
          transfer.items.add(new File([arguments[1]], 'empty-checkout.ndjson', {type: 'application/x-ndjson'}));
          for (const type of ['dragenter', 'dragover', 'drop'])
            arguments[0].dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: transfer}));
        """, self.find("file-drop-zone"), text)
        self.until(lambda d: self.text("source-label").startswith("File empty-checkout.ndjson"), "dropped file label")
        self.find("close-session").click()
        self.until(lambda d: self.text("source-label").startswith("Server log"), "back to the log again")

    def errors_are_the_servers(self):
        self.open("#stream=no-such-stream")
        self.until(lambda d: self.find("error-banner").is_displayed(), "error banner")
        assert "no-such-stream" in self.text("error-message"), self.text("error-message")
        self.open()
        self.driver.execute_script("""
          const transfer = new DataTransfer();
          transfer.items.add(new File(['not json\\n'], 'broken.ndjson', {type: 'application/x-ndjson'}));
          for (const type of ['dragenter', 'dragover', 'drop'])
            arguments[0].dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: transfer}));
        """, self.find("file-drop-zone"))
        self.until(lambda d: "Line 1" in self.text("file-status"), "invalidExport shown")
        self.open("#stream=demo-1&v=99")
        self.until(lambda d: self.selected_version() == self.find("timeline-slider").get_attribute("max"), "last version instead")

    def see_an_events_trace_id(self):
        trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
        traceparent = f"00-{trace_id}-00f067aa0ba902b7-01"
        self.post({"type": "app.launched", "stream": "traced-1", "hasOnboarded": False}, headers={"traceparent": traceparent})
        self.open("#stream=traced-1&v=1")
        self.until(lambda d: "app.launched" in self.text("event-details"), "app.launched shown")
        details = self.text("event-details")
        assert "Trace id" in details and trace_id in details, details
        shown = self.find("event-details").find_element(By.CSS_SELECTOR, "code.trace-id")
        assert shown.get_attribute("title") == traceparent, shown.get_attribute("title")

    def run(self, only=None):
        names = ["load_the_demo_session", "step_the_timeline", "state_panel_and_diff", "filter", "bisect",
                 "see_a_live_event", "download", "drop_a_file", "errors_are_the_servers", "see_an_events_trace_id"]
        passed = failed = 0
        for name in names:
            if only and name not in only:
                continue
            started = time.monotonic()
            try:
                getattr(self, name)()
                passed += 1
                print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception:
                failed += 1
                print(f"FAIL {name}", flush=True)
                traceback.print_exc()
                logs = self.driver.get_log("browser") if hasattr(self.driver, "get_log") else []
                for entry in logs[-10:]:
                    print("  browser:", entry.get("message"), flush=True)
        self.driver.quit()
        print(f"inspector: {passed} passed, {failed} failed", flush=True)
        return failed == 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--flowlog", required=True)
    parser.add_argument("--downloads", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("--only", nargs="*")
    arguments = parser.parse_args()
    sys.exit(0 if Journeys(arguments).run(arguments.only) else 1)
