#!/usr/bin/env python3
"""What exporting spans costs `send` (docs/performance.md, "Traces"): the same commands sent into an
empty log with no OpenTelemetry settings, with an OTLP receiver configured and the sampler
`always_off`, with `parentbased_traceidratio` at 0.1, and with every trace sampled (`always_on`); the
configurations alternate run by run.

    python3 scripts/tracing-load/send.py --flowlog BINARY [--commands 200000] [--runs 7] [--work DIR]

The receiver is Tests/collectors/otlp_receiver.py on loopback. Prints each configuration's median
wall time and its ratio to the run without settings.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time

CONFIGURATIONS = {
    "none": {},
    "always_off": {"OTEL_TRACES_SAMPLER": "always_off"},
    "ratio 0.1": {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"},
    "always_on": {"OTEL_TRACES_SAMPLER": "always_on"},
}


def commands(count):
    """`count` accepted cart additions over 1,000 sessions."""
    return "".join(
        json.dumps({"stream": f"session-{n % 1000}", "type": "cart.addProduct", "productId": f"p{n % 7}", "name": "Mug",
                    "unitPrice": 350, "quantity": 1}) + "\n" for n in range(count))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flowlog", required=True)
    parser.add_argument("--commands", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--work", default="/tmp/flowlog-tracing-load")
    options = parser.parse_args()
    shutil.rmtree(options.work, ignore_errors=True)
    os.makedirs(options.work)
    source = os.path.join(options.work, "commands.ndjson")
    with open(source, "w") as file:
        file.write(commands(options.commands))
    receiver_script = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "collectors", "otlp_receiver.py")
    receiver = subprocess.Popen([sys.executable, receiver_script], stdout=subprocess.PIPE, text=True)
    port = int(receiver.stdout.readline())
    times = {name: [] for name in CONFIGURATIONS}
    try:
        for run in range(options.runs):
            for name, settings in CONFIGURATIONS.items():
                environment = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
                if settings:
                    environment.update(settings, OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}")
                db = os.path.join(options.work, "log")
                shutil.rmtree(db, ignore_errors=True)
                started = time.perf_counter()
                done = subprocess.run([options.flowlog, "send", source, "--db", db], env=environment, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
                elapsed = time.perf_counter() - started
                if done.returncode != 0:
                    sys.exit(f"send with {name} exited {done.returncode}: {done.stderr}")
                times[name].append(elapsed)
                print(f"run {run + 1} {name}: {elapsed:.3f} s", file=sys.stderr)
    finally:
        receiver.kill()
    base = statistics.median(times["none"])
    print(f"send of {options.commands:,} commands, {options.runs} runs each, alternating; median wall time:")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<12} {median:.3f} s  ({median / base:.3f}x of none)")


if __name__ == "__main__":
    main()
