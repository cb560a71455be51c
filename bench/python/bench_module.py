#!/usr/bin/env python3
"""What reporting through the trainyard module costs a training loop, against
the reference a script without Trainyard uses: a JSON line appended to its
own log file per step (and, second reference, a bare print to a file).

Three settings of the module, as users run it: outside Trainyard (file
only), inside with an app that reads every line, and inside with an app that
reads nothing (stalled, or gone: the socket's buffers fill and the module's
queue drops the oldest lines). Each figure is the median of 5 rounds of N
log() calls; the ratio is module time / reference time per call.

    python3 bench/python/bench_module.py [N]
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.join(HERE, "..", "..", "python")

CHILD = r"""
import json, os, sys, time
import trainyard
n = int(sys.argv[1]); mode = sys.argv[2]
rounds = []
if mode == "reference":
    with open(os.path.join(os.environ["OUT"], "log.jsonl"), "a") as f:
        for r in range(5):
            t = time.perf_counter()
            for step in range(n):
                f.write(json.dumps({"step": step, "loss": 1.0 / (step + 1), "epoch": 1}) + "\n")
            f.flush()
            rounds.append((time.perf_counter() - t) / n)
elif mode == "print":
    with open(os.path.join(os.environ["OUT"], "print.txt"), "a") as f:
        for r in range(5):
            t = time.perf_counter()
            for step in range(n):
                print(f"step {step} loss {1.0 / (step + 1)}", file=f)
            f.flush()
            rounds.append((time.perf_counter() - t) / n)
else:
    run = trainyard.init()
    for r in range(5):
        t = time.perf_counter()
        for step in range(n):
            run.log(r * n + step, loss=1.0 / (step + 1), epoch=1)
        rounds.append((time.perf_counter() - t) / n)
    t = time.perf_counter()
    run.finish()
    print("finish_s", time.perf_counter() - t, file=sys.stderr)
print(json.dumps(rounds))
"""


def serve(path, read):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)

    def loop():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            if read:
                threading.Thread(target=lambda c=conn: [None for _ in iter(lambda: c.recv(65536), b"")],
                                 daemon=True).start()
            # else: keep the connection open and never read

    threading.Thread(target=loop, daemon=True).start()
    return srv


def measure(mode, connect=None):
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONPATH=MODULE, OUT=out, TRAINYARD_RUN_DIR=os.path.join(out, "run"),
                   TRAINYARD_RUN_NAME="bench", TRAINYARD_TOKEN="t0ken")
        env.pop("TRAINYARD_CONNECT", None)
        if connect:
            env["TRAINYARD_CONNECT"] = connect
        p = subprocess.run([sys.executable, "-c", CHILD, str(N), mode], env=env, capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0:
            raise SystemExit(f"{mode}: {p.stderr}")
        return statistics.median(json.loads(p.stdout.strip().splitlines()[-1])) * 1e6


def main():
    reference = measure("reference")
    bare = measure("print")
    rows = [("file only (outside Trainyard)", measure("module"))]
    with tempfile.TemporaryDirectory() as d:
        srv = serve(os.path.join(d, "s"), read=True)
        rows.append(("socket, app reading", measure("module", "unix:" + os.path.join(d, "s"))))
        srv.close()
    with tempfile.TemporaryDirectory() as d:
        srv = serve(os.path.join(d, "s"), read=False)
        rows.append(("socket, app reading nothing", measure("module", "unix:" + os.path.join(d, "s"))))
        srv.close()
    print(f"trainyard module, {N} log() calls x 5 rounds, median µs per call")
    print(f"  reference: json.dumps + write to the script's own file  {reference:7.2f} µs")
    print(f"  reference: print() to a file                             {bare:7.2f} µs")
    for name, us in rows:
        print(f"  module, {name:<40} {us:7.2f} µs   ratio {us / reference:5.2f} x the json reference")


if __name__ == "__main__":
    main()
