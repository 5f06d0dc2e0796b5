"""`flowlog serve` under load (the issue's item 6), run by `scripts/bench serve` on a release build.

    python3 scripts/serve-load/load.py --flowlog .build/release/flowlog --work DIR
        [--cases batched,single,sse,page] [--runs 3] [--duration 10] [--subscribers 100]
        [--events 100000] [--page-events 1000000]
        [--batched-connections 16] [--single-connections 64] [--wrk-threads 2]

batched  wrk -t2 -c16 (--batched-connections), NDJSON batches of 100 commands a request
         (commands/s = requests/s x 100)
single   wrk -t2 -c64 (--single-connections), one command a request (requests/s); every answer
         is sent after its commit. A list (--single-connections 64,128,256) runs the case once
         for each count: by Little's law the rate is at most connections / commit latency.
sse      N subscribers on /events/subscribe, then `events` events committed: each subscriber must get
         every one, exactly once and in order (a subscriber cut off as slow resumes with Last-Event-ID,
         and is counted)
page     the inspector's first load (until the stream list shows) in a fresh headless Chromium,
         on a log of `page-events` events (10 streams), and opening a 100,000-event stream
Prints one line a run and a table of medians against the targets; exits 1 if a check failed
(a rejected command, a subscriber missing an event), not if a target is missed.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = {"batched": ("commands/s", 50_000), "single": ("requests/s", 5_000)}


class Server:
    """`flowlog serve` on a log of its own under `work`, on a free loopback port."""

    def __init__(self, flowlog, work, name, extra=()):
        self.db = os.path.join(work, name)
        shutil.rmtree(self.db, ignore_errors=True)
        self.out = open(os.path.join(work, name + ".out"), "w+")
        self.err = open(os.path.join(work, name + ".err"), "w")
        self.process = subprocess.Popen([flowlog, "serve", "--db", self.db, "--listen", "127.0.0.1:0", *extra],
                                        stdout=self.out, stderr=self.err)
        for _ in range(400):
            self.out.seek(0)
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.out.read())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.025)
        raise SystemExit(f"flowlog serve did not start; see {self.err.name}")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, content_type="application/x-ndjson"):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        connection.request(method, path, body=body, headers={"Content-Type": content_type} if body is not None else {})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, data

    def head(self):
        return json.loads(self.request("GET", "/health")[1])["headPosition"]

    def metric(self, name):
        text = self.request("GET", "/metrics")[1].decode()
        found = re.search(r"^" + re.escape(name) + r" (\d+(?:\.\d+)?)$", text, re.M)
        return float(found.group(1)) if found else 0.0

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=120)
        if status != 0:
            raise SystemExit(f"flowlog serve exited {status}; see {self.err.name}")


def fill(server, events, streams):
    """`events` events over `streams` streams, by NDJSON batches of add/remove pairs (all accepted)."""
    per_batch = 1000
    written = 0
    while written < events:
        count = min(per_batch, events - written)
        stream = f"s{(written // per_batch) % streams}"
        lines = [('{"type":"cart.addProduct","stream":"%s","productId":"p1","unitPrice":100,"quantity":1}' if (written + i) % 2 == 0
                  else '{"type":"cart.removeProduct","stream":"%s","productId":"p1"}') % stream for i in range(count)]
        status, body = server.request("POST", "/commands", ("\n".join(lines) + "\n").encode())
        if status != 200 or b'"ok":false' in body:
            raise SystemExit(f"filling the log: {status} {body[:300]!r}")
        written += count


def wrk(args, case, batch, connections):
    rates = []
    failed = False
    for run in range(args.runs):
        server = Server(args.flowlog, args.work, f"{case}-{run}")
        result = subprocess.run(["wrk", f"-t{args.wrk_threads}", f"-c{connections}", f"-d{args.duration}s", "--timeout", "30s",
                                 "-s", os.path.join(HERE, "commands.lua"), server.base],
                                env={**os.environ, "BATCH": str(batch)}, capture_output=True, text=True)
        requests_per_second = float(re.search(r"Requests/sec:\s+([\d.]+)", result.stdout).group(1))
        done = int(re.search(r"(\d+) requests in", result.stdout).group(1))
        non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", result.stdout)
        rejected = server.metric('flowlog_commands_total{outcome="rejected"}')
        head = server.head()
        server.stop()
        ok = non_2xx is None and rejected == 0 and head >= done * batch
        failed |= not ok
        rate = requests_per_second * batch
        rates.append(rate)
        latency = re.search(r"Latency\s+(\S+)\s+(\S+)\s+(\S+)", result.stdout)
        print(f"{case} -t{args.wrk_threads} -c{connections} run {run + 1}: {rate:,.0f} {TARGETS[case][0]} ({done:,} requests in {args.duration} s, "
              f"latency avg {latency.group(1)} max {latency.group(3)}, head {head:,}, non-2xx {non_2xx.group(1) if non_2xx else 0}, "
              f"rejected {rejected:.0f}, load average {os.getloadavg()[0]:.1f}){'' if ok else '  CHECK FAILED'}", flush=True)
    return statistics.median(rates), failed


class Subscriber(threading.Thread):
    """Reads /events/subscribe until it has position `last`; checks each id is the next one."""

    def __init__(self, port, last):
        super().__init__(daemon=True)
        self.port, self.last = port, last
        self.next_id = None
        self.reconnects = 0
        self.error = None
        self.ready = threading.Event()

    def connect(self, after):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=120)
        header = f"Last-Event-ID: {after}\r\n" if after is not None else ""
        sock.sendall(f"GET /events/subscribe HTTP/1.1\r\nHost: x\r\n{header}Connection: close\r\n\r\n".encode())
        return sock

    def run(self):
        pattern = re.compile(rb"\nid: (\d+)\n")
        after = None
        try:
            while self.next_id is None or self.next_id <= self.last:
                sock = self.connect(after)
                pending = b""
                while True:
                    chunk = sock.recv(1 << 20)
                    if not chunk:
                        break
                    if not self.ready.is_set() and b"retry:" in pending + chunk:
                        self.ready.set()
                    pending += chunk
                    cut = pending.rfind(b"\n\n")
                    if cut < 0:
                        continue
                    # Chunked framing may split a frame; ids are only read from whole frames.
                    for match in pattern.finditer(b"\n" + pending[:cut + 1]):
                        found = int(match.group(1))
                        if self.next_id is None:
                            self.next_id = found
                        if found != self.next_id:
                            raise AssertionError(f"got id {found}, expected {self.next_id}")
                        self.next_id += 1
                    pending = pending[cut + 2:]
                    if self.next_id is not None and self.next_id > self.last:
                        break
                sock.close()
                if self.next_id is None or self.next_id <= self.last:
                    self.reconnects += 1
                    after = (self.next_id or 1) - 1
        except Exception as error:  # reported by the main thread
            self.error = error
            self.ready.set()


def sse(args):
    """Subscribers connect to a fresh log, then `events` are committed; returns events/s delivered in all."""
    server = Server(args.flowlog, args.work, "sse")
    subscribers = [Subscriber(server.port, args.events) for _ in range(args.subscribers)]
    for subscriber in subscribers:
        subscriber.start()
    for subscriber in subscribers:
        subscriber.ready.wait(60)
    started = time.monotonic()
    fill(server, args.events, 100)
    committed = time.monotonic() - started
    for subscriber in subscribers:
        subscriber.join(600)
    elapsed = time.monotonic() - started
    server.stop()
    complete = [s for s in subscribers if s.error is None and s.next_id == args.events + 1 and s.ready.is_set()]
    errors = [str(s.error) for s in subscribers if s.error is not None][:3]
    reconnects = sum(s.reconnects for s in subscribers)
    print(f"sse: {len(complete)}/{len(subscribers)} subscribers got all {args.events:,} events in order in {elapsed:.1f} s "
          f"(the events committed in {committed:.1f} s; {args.subscribers * args.events / elapsed:,.0f} events/s delivered in all; "
          f"{reconnects} reconnects after a cut-off){' errors: ' + '; '.join(errors) if errors else ''}", flush=True)
    return elapsed, len(complete) != len(subscribers)


def page(args):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    server = Server(args.flowlog, args.work, "page")
    started = time.monotonic()
    fill(server, args.page_events, 10)
    print(f"page: the log holds {server.head():,} events (filled in {time.monotonic() - started:.1f} s)", flush=True)
    loads, opens = [], []
    for run in range(args.runs):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900", "--disable-gpu"]:
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            def until(condition, timeout=120):
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    try:
                        if condition():
                            return
                    except Exception:
                        pass
                    time.sleep(0.01)
                raise AssertionError("timed out")
            began = time.monotonic()
            driver.get(f"{server.base}/inspector/")
            until(lambda: len(driver.find_elements(By.CSS_SELECTOR, '[data-testid="stream-item"]')) == 10
                  and driver.find_element(By.CSS_SELECTOR, '[data-testid="source-label"]').text.startswith("Server log"))
            loads.append(time.monotonic() - began)
            began = time.monotonic()
            driver.find_element(By.CSS_SELECTOR, '[data-testid="stream-item"][data-stream="s0"]').click()
            last = str(args.page_events // 10)
            until(lambda: driver.find_element(By.CSS_SELECTOR, '[data-testid="timeline-row"][aria-selected="true"]').get_attribute("data-version") == last
                  and driver.find_element(By.CSS_SELECTOR, '[data-testid="inspect"]').get_attribute("aria-busy") != "true")
            opens.append(time.monotonic() - began)
        finally:
            driver.quit()
        print(f"page run {run + 1}: first load {loads[-1] * 1000:.0f} ms; a {int(last):,}-event stream opened at its last version in {opens[-1] * 1000:.0f} ms", flush=True)
    server.stop()
    return statistics.median(loads), statistics.median(opens)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowlog", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cases", default="batched,single,sse,page")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--page-events", type=int, default=1_000_000)
    parser.add_argument("--batched-connections", default="16", help="wrk connections of the batched case (a comma-separated list runs it for each)")
    parser.add_argument("--single-connections", default="64", help="wrk connections of the single case (a comma-separated list runs it for each)")
    parser.add_argument("--wrk-threads", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failed = False
    summary = []
    for case in args.cases.split(","):
        if case in ("batched", "single"):
            counts = args.batched_connections if case == "batched" else args.single_connections
            for connections in [int(count) for count in counts.split(",")]:
                median, bad = wrk(args, case, 100 if case == "batched" else 1, connections)
                unit, target = TARGETS[case]
                failed |= bad
                summary.append(f"{case:8} wrk -t{args.wrk_threads} -c{connections:<4} median {median:>10,.0f} {unit:11} "
                               f"target >= {target:,}: {'met' if median >= target else 'MISSED'}")
        elif case == "sse":
            elapsed, bad = sse(args)
            failed |= bad
            summary.append(f"sse      {args.subscribers} subscribers x {args.events:,} events: {'all complete, in order' if not bad else 'INCOMPLETE'} in {elapsed:.1f} s")
        elif case == "page":
            load, opened = page(args)
            summary.append(f"page     median first load {load * 1000:,.0f} ms on {args.page_events:,} events; a {args.page_events // 10:,}-event stream opens in {opened * 1000:,.0f} ms")
        else:
            raise SystemExit(f"unknown case {case}; the cases are batched, single, sse and page")
    print("\n".join(summary))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
