#!/usr/bin/env python3
"""Runners sharing the trackers' parts against a slow collector (docs/performance.md, "Runners
sharing partitions"):

1. delivery: the same log delivered to Tests/collectors/vendor_collector.py, which answers each
   request after --slow seconds (50 ms), by one runner without partitions (`projections run`, once)
   and by two runners on four partitions (`projections run --follow --partitions 4` twice, timed
   until `projections status` shows every part at the head); alternated run by run;
2. standby: one following runner catching up a log into files, alone and with a `--standby` beside
   it, alternated run by run.

    python3 scripts/partition-load/run.py --flowlog BINARY [--db URL | --postgres] [--events 1200] [--streams 400]
        [--runs 3] [--standby-events 100000] [--work DIR]

Without --db each run gets a fresh LMDB log in the work folder; with a PostgreSQL URL, a fresh
schema (`?schema=` is replaced); --postgres starts a throwaway server for the run. Prints each configuration's median and the ratios.
"""
import argparse, glob, json, os, re, shutil, signal, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTOR = os.path.join(HERE, "..", "..", "Tests", "collectors", "vendor_collector.py")


def commands(count, streams):
    return "".join(
        json.dumps({"stream": f"session-{n % streams}", "type": "cart.addProduct", "productId": f"p{n % 7}",
                    "name": "Mug", "unitPrice": 350, "quantity": 1}) + "\n" for n in range(count))


class Bench:
    def __init__(self, options):
        self.options = options
        self.serial = 0

    def fresh_db(self, name):
        """A new, empty log: a folder, or a new schema of the PostgreSQL database."""
        self.serial += 1
        if not self.options.db:
            path = os.path.join(self.options.work, f"{name}-{self.serial}")
            shutil.rmtree(path, ignore_errors=True)
            return path
        base = re.sub(r"([?&])schema=[^&]*&?", r"\1", self.options.db).rstrip("?&")
        return f"{base}{'&' if '?' in base else '?'}schema=bench_parts_{os.getpid()}_{self.serial}"

    def flowlog(self, arguments, **kwargs):
        return subprocess.run([self.options.flowlog] + arguments, check=True, **kwargs)

    def filled(self, name, source):
        db = self.fresh_db(name)
        with open(source) as stdin:
            self.flowlog(["send", "--db", db], stdin=stdin, stdout=subprocess.DEVNULL)
        return db

    def caught_up(self, db, head, trackers):
        """Whether every projector (and part) of the log stands at `head`."""
        lines = subprocess.run([self.options.flowlog, "projections", "status", "--format", "json", "--db", db] + trackers,
                               check=True, capture_output=True, text=True).stdout.splitlines()
        return len(lines) == 3 and all(json.loads(line)["checkpoint"] == head for line in lines)

    def follow_until(self, db, head, runners, trackers):
        """Starts the runners, returns the seconds until every part stood at `head`, then stops them."""
        started = time.monotonic()
        processes = []
        for arguments in runners:
            processes.append(subprocess.Popen([self.options.flowlog, "projections", "run", "--follow", "--db", db]
                                              + arguments + trackers, stdout=subprocess.DEVNULL))
            time.sleep(0.05)
        try:
            while not self.caught_up(db, head, trackers):
                time.sleep(0.05)
            return time.monotonic() - started
        finally:
            for process in processes:
                process.send_signal(signal.SIGTERM)
            for process in processes:
                process.wait(timeout=60)


def throwaway_postgres(work):
    """A PostgreSQL server of its own (initdb into the work folder, a Unix socket, durable commits),
    stopped when the bench ends; returns its URL and the command that stops it."""
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
    folder = os.path.join(work, "postgres")
    os.makedirs(folder)
    as_server = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    if as_server:
        subprocess.run(["chown", "postgres:postgres", folder], check=True)
    os.chmod(folder, 0o700)
    data = os.path.join(folder, "data")
    subprocess.run(as_server + [f"{binaries}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-instructions"],
                   check=True, stdout=subprocess.DEVNULL)
    options = f"-c listen_addresses='' -c unix_socket_directories={folder} -c port=5499 -c max_connections=200"
    subprocess.run(as_server + [f"{binaries}/pg_ctl", "-D", data, "-l", os.path.join(folder, "log"), "-w", "-o", options, "start"],
                   check=True, stdout=subprocess.DEVNULL)
    stop = as_server + [f"{binaries}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"]
    return f"postgres://postgres@/postgres?host={folder}&port=5499", stop


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowlog", required=True)
    parser.add_argument("--db")
    parser.add_argument("--postgres", action="store_true", help="start a throwaway PostgreSQL server and use it")
    parser.add_argument("--events", type=int, default=1_200)
    parser.add_argument("--streams", type=int, default=400)
    parser.add_argument("--slow", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--standby-events", type=int, default=100_000)
    parser.add_argument("--standby-runs", type=int, default=7)
    parser.add_argument("--work", default="/tmp/flowlog-partition-load")
    options = parser.parse_args()
    shutil.rmtree(options.work, ignore_errors=True)
    os.makedirs(options.work)
    stop_postgres = None
    if options.postgres:
        options.db, stop_postgres = throwaway_postgres(options.work)
    try:
        run_all(options)
    finally:
        if stop_postgres:
            subprocess.run(stop_postgres, stdout=subprocess.DEVNULL)


def run_all(options):
    bench = Bench(options)

    source = os.path.join(options.work, "commands.ndjson")
    with open(source, "w") as file:
        file.write(commands(options.events, options.streams))
    collector = subprocess.Popen([sys.executable, COLLECTOR, "--segment-auth-mode", "none", "--slow", str(options.slow)],
                                 stdout=subprocess.PIPE, text=True)
    port = int(collector.stdout.readline())
    secret = os.path.join(options.work, "secret")
    with open(secret, "w") as file:
        file.write("SECRET\n")
    key = os.path.join(options.work, "key")
    with open(key, "w") as file:
        file.write("KEY\n")
    delivery = {"one runner": [], "two runners, four partitions": []}
    try:
        for run in range(options.runs):
            for name in delivery:
                db = bench.filled("delivery", source)
                folder = os.path.join(options.work, f"trackers-{bench.serial}")
                trackers = ["--tracker-dir", folder, "--segment-url", f"http://127.0.0.1:{port}/v1/batch",
                            "--write-key-file", key, "--ga4-url", f"http://127.0.0.1:{port}/mp/collect",
                            "--ga4-measurement-id", "G-BENCH", "--ga4-api-secret-file", secret]
                if name == "one runner":
                    started = time.monotonic()
                    bench.flowlog(["projections", "run", "--db", db] + trackers, stdout=subprocess.DEVNULL)
                    seconds = time.monotonic() - started
                else:
                    seconds = bench.follow_until(db, options.events, [["--partitions", "4"], []], trackers)
                delivery[name].append(seconds)
                print(f"run {run + 1}: {name}: {seconds:.2f} s ({options.events / seconds:,.0f} events/s)", file=sys.stderr)
    finally:
        collector.send_signal(signal.SIGTERM)
        collector.wait(timeout=10)

    standby_source = os.path.join(options.work, "standby.ndjson")
    with open(standby_source, "w") as file:
        file.write(commands(options.standby_events, 1_000))
    standby = {"alone": [], "with a standby": []}
    for run in range(options.standby_runs):
        for name in standby:
            db = bench.filled("standby", standby_source)
            trackers = ["--tracker-dir", os.path.join(options.work, f"files-{bench.serial}")]
            runners = [[]] + ([["--standby"]] if name == "with a standby" else [])
            seconds = bench.follow_until(db, options.standby_events, runners, trackers)
            standby[name].append(seconds)
            print(f"run {run + 1}: holder {name}: {seconds:.2f} s", file=sys.stderr)

    one = median(delivery["one runner"])
    two = median(delivery["two runners, four partitions"])
    print(f"delivery of {options.events:,} events over {options.streams} sessions, collector answering after "
          f"{options.slow * 1000:.0f} ms, median of {options.runs}:")
    for name, values in delivery.items():
        print(f"  {name}: {median(values):.2f} s, {options.events / median(values):,.0f} events/s")
    print(f"  ratio (two runners, four partitions / one runner, events/s): {one / two:.2f}x")
    alone = median(standby["alone"])
    beside = median(standby["with a standby"])
    print(f"a holder catching up {options.standby_events:,} events into files, median of {options.standby_runs}:")
    print(f"  alone {alone:.2f} s; with a standby {beside:.2f} s; ratio {beside / alone:.3f}")


if __name__ == "__main__":
    main()
