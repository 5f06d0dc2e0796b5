"""Drives the inspector `tasklog serve` embeds in headless Chromium (Debian's chromium and
chromium-driver, Selenium), on a log of the to-do list: the same page as flowlog's, showing a
state it was not written for.

    python3 Tests/inspector/test_list_inspector.py --base http://127.0.0.1:PORT

The log holds stream list-1: t1 added, t2 added, t1 renamed "Buy oat milk", t1 completed.
Prints `ok` and exits 0, or prints what it waited for in vain and exits 1.
"""
import argparse
import sys

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main(base):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", "--disable-gpu"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 15, ignored_exceptions=[StaleElementReferenceException])

    def texts(selector):
        return [element.text for element in driver.find_elements(By.CSS_SELECTOR, selector)]

    def until(condition, what):
        try:
            wait.until(lambda d: condition())
        except Exception as error:
            raise AssertionError(f"timed out waiting for {what}") from error

    try:
        driver.get(f"{base}/inspector/#stream=list-1&v=4")
        until(lambda: texts('[data-testid="stream-title"]') == ["list-1"], "list-1 open")
        until(lambda: "task.completed" in " ".join(texts('[data-testid="event-details"]')), "task.completed shown at v4")
        rows = '[data-testid="state-member"][data-member="tasks"] [data-testid="state-row"]'
        until(lambda: len(texts(rows)) == 2, "two tasks in the state panel")
        shown = texts(rows)
        assert "Buy oat milk" in shown[0] and "true" in shown[0], shown
        assert "Call Bob" in shown[1] and "false" in shown[1], shown
        until(lambda: texts('[data-testid="state-member"][data-member="openTasks"] [data-testid="state-value"]') == ["1"], "openTasks 1")
        # One step back in time: t1 not yet done.
        driver.find_element(By.CSS_SELECTOR, '[data-testid="timeline-row"][data-version="1"]').click()
        until(lambda: len(texts(rows)) == 1 and "Buy milk" in texts(rows)[0], "one task at v1")
        severe = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        assert not severe, severe
        print("ok")
        return True
    except AssertionError as failure:
        print(f"FAIL {failure}")
        return False
    finally:
        driver.quit()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    sys.exit(0 if main(parser.parse_args().base) else 1)
