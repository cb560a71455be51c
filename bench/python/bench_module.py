#!/usr/bin/env python3
"""What one trainyard log() costs, against what a script does without
Trainyard: ``json.dumps`` of the same line and one ``os.write()`` of it to
its own file (unbuffered, as the module writes: a line per write, nothing
lost when the process dies). Target: log() <= 1.5x that.

Both run in the same process, in alternating rounds (reference, module,
reference, ...), so that a machine busy with something else slows both
alike; the ratio of a round is module / reference, and the figure is the
median of the rounds' ratios. Two lines, as scripts log them: the loss
alone, and the loss with two extras (lr, grad_norm); two settings: outside
Trainyard (the file only) and inside, connected to a fake orchestrator (a
unix socket in this process, reading every byte, as the app does). After
the connected rounds the orchestrator must have received every line.

    python3 bench/python/bench_module.py [--calls N] [--rounds R] [--module PYTHON_DIR]

Exit status 0 when every line was delivered; the ratios are printed, with
whether each meets the target (a busy machine can miss it: see
docs/results.md for the figures of a quiet one).
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = 1.5

# Runs in a fresh interpreter: the module imported the way a script does.
CHILD = r"""
import json, os, sys, time
import trainyard
calls, rounds = int(sys.argv[1]), int(sys.argv[2])
run = trainyard.init()
if run._link is not None:  # connected first: the rounds measure logging, not connecting
    deadline = time.monotonic() + 10
    while not run._link.connected and time.monotonic() < deadline:
        time.sleep(0.01)
fd = os.open(os.path.join(os.environ["OUT"], "reference.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
t0 = time.monotonic()
step = 0
results = {"loss": [], "extras": []}
for r in range(rounds):
    for kind in ("loss", "extras"):
        extras = kind == "extras"
        begin = time.perf_counter()
        for i in range(step, step + calls):
            line = {"type": "metric", "step": i, "epoch": 1, "loss": 1.0 / (i + 1)}
            if extras:
                line["lr"] = 0.001
                line["grad_norm"] = 0.5 + i * 1e-7
            line["wall"] = time.monotonic() - t0
            os.write(fd, (json.dumps(line) + "\n").encode())
        reference = time.perf_counter() - begin
        begin = time.perf_counter()
        if extras:
            for i in range(step, step + calls):
                run.log(i, loss=1.0 / (i + 1), epoch=1, lr=0.001, grad_norm=0.5 + i * 1e-7)
        else:
            for i in range(step, step + calls):
                run.log(i, loss=1.0 / (i + 1), epoch=1)
        module = time.perf_counter() - begin
        step += calls
        results[kind].append([reference / calls, module / calls])
begin = time.perf_counter()
run.finish()
results["finish_s"] = time.perf_counter() - begin
results["lines"] = step
print(json.dumps(results))
"""


class Orchestrator:
    """A metrics socket that reads every byte of its one connection and counts the lines."""

    def __init__(self, path):
        self.lines = 0
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.server.settimeout(60)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.server.accept()
        with conn:
            while True:
                data = conn.recv(1 << 16)
                if not data:
                    return
                self.lines += data.count(b"\n")


def measure(module_dir, calls, rounds, connect=None):
    with tempfile.TemporaryDirectory(prefix="ty-bench-") as out:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        env.update(PYTHONPATH=module_dir, OUT=out, TRAINYARD_RUN_DIR=os.path.join(out, "run"),
                   TRAINYARD_RUN_NAME="bench", TRAINYARD_TOKEN="bench-token")
        server = None
        if connect:
            server = Orchestrator(os.path.join(out, "s"))
            env["TRAINYARD_CONNECT"] = "unix:" + os.path.join(out, "s")
        done = subprocess.run([sys.executable, "-c", CHILD, str(calls), str(rounds)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=900)
        if done.returncode != 0:
            raise SystemExit("bench_module: the child failed:\n" + done.stderr)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        with open(os.path.join(out, "run", "metrics.jsonl"), "rb") as f:
            in_file = f.read().count(b"\n")
        delivered = None
        if server:
            server.thread.join(10)
            delivered = server.lines
            server.server.close()
        return result, in_file, delivered


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000, help="log() calls per round (default 20000)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each (default 7)")
    parser.add_argument("--module", default=os.path.join(HERE, "..", "..", "python"),
                        help="the folder holding the trainyard package (default: the source tree's)")
    args = parser.parse_args()
    module_dir = os.path.abspath(args.module)
    print("trainyard log() against json.dumps + os.write of the same line: %d calls x %d rounds each, "
          "alternating; median of the rounds (µs per call) and of their ratios; target <= %.1fx"
          % (args.calls, args.rounds, TARGET))
    print("%-32s %-16s %10s %10s %7s  %s" % ("setting", "line", "reference", "log()", "ratio", "target"))
    ok = True
    for setting, connect in (("file only (outside Trainyard)", False), ("connected, app reading", True)):
        result, in_file, delivered = measure(module_dir, args.calls, args.rounds, connect)
        for kind, label in (("loss", "loss"), ("extras", "loss + 2 extras")):
            rounds = result[kind]
            reference = statistics.median(r for r, _ in rounds) * 1e6
            module = statistics.median(m for _, m in rounds) * 1e6
            ratio = statistics.median(m / r for r, m in rounds)
            print("%-32s %-16s %10.2f %10.2f %6.2fx  %s" % (setting, label, reference, module, ratio,
                                                          "met" if ratio <= TARGET else "NOT met"))
        # Every log() line is in the file (and on the socket), besides the start and done lines.
        expected = result["lines"]
        problems = []
        if in_file < expected + 2:
            problems.append("metrics.jsonl has %d lines for %d log() calls" % (in_file, expected))
        if connect and delivered < in_file + 1:  # + the hello
            problems.append("the orchestrator received %d lines of %d (+ hello)" % (delivered, in_file))
        print("%-32s finish() %.3f s; %s" % ("", result["finish_s"],
                                              "; ".join(problems) if problems else "every line delivered"))
        ok = ok and not problems
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
