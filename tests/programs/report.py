#!/usr/bin/env python3
"""A training loop in miniature for the program-run tests: it reports a
falling loss through the trainyard module, honours stop and pause, and can
crash, stay silent (heartbeats only) or write what Trainyard gave it.

    report.py STEPS STEP_MS [--crash-at N] [--silent] [--stubborn] [--env-to FILE]
"""
import argparse
import json
import os
import sys
import time

import trainyard

parser = argparse.ArgumentParser()
parser.add_argument("steps", type=int)
parser.add_argument("step_ms", type=int)
parser.add_argument("--crash-at", type=int, default=0)
parser.add_argument("--silent", action="store_true", help="report nothing, only heartbeat, for STEPS x STEP_MS")
parser.add_argument("--stubborn", action="store_true", help="never ask should_stop(): only signals end it")
parser.add_argument("--env-to", help="write the TRAINYARD_* and CUDA_VISIBLE_DEVICES variables here as JSON")
args = parser.parse_args()

run = trainyard.init()
if args.env_to:
    seen = {k: v for k, v in os.environ.items() if k.startswith("TRAINYARD_") or k == "CUDA_VISIBLE_DEVICES"}
    seen.pop("TRAINYARD_TOKEN", None)  # never written anywhere
    seen["token_given"] = bool(os.environ.get("TRAINYARD_TOKEN"))
    seen["cwd"] = os.getcwd()
    with open(args.env_to, "w") as f:
        json.dump(seen, f)

if args.silent:
    end = time.monotonic() + args.steps * args.step_ms / 1000
    while time.monotonic() < end and not run.should_stop():
        time.sleep(0.05)
    sys.exit(0)

first = (run.resume_step or 0) + 1
if run.resuming:
    print(f"resuming after step {first - 1}", flush=True)
for step in range(first, args.steps + 1):
    if not args.stubborn and run.wait_while_paused():
        print(f"stopping at step {step - 1}", flush=True)
        break
    if step == args.crash_at:
        print("about to divide by zero", flush=True)
        1 / 0
    time.sleep(args.step_ms / 1000)
    run.log(step, loss=1.0 / step, epoch=1 + step // 10, total_steps=args.steps)
    if step % 10 == 0:
        path = os.path.join(run.checkpoint_dir, f"step-{step}.txt")
        with open(path, "w") as f:
            f.write(str(step))
        run.checkpoint(step, path)
else:
    run.eval("valid", args.steps, accuracy=0.5)
