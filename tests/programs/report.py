#!/usr/bin/env python3
"""A training loop in miniature for the program-run tests: it reports a
falling loss through the trainyard module, honours stop and pause, and can
crash (an exception raised from another, or deep in a recursion), stay
silent (heartbeats only), write what Trainyard gave it, or end with the
other forms of log() and a summary.

    report.py STEPS STEP_MS [--crash-at N [--chained | --deep FRAMES]] [--silent] [--stubborn]
              [--env-to FILE] [--forms]
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
parser.add_argument("--chained", action="store_true", help="crash with an exception raised from another")
parser.add_argument("--deep", type=int, default=0, help="crash this many calls deep (a long traceback)")
parser.add_argument("--forms", action="store_true", help="end with log() without a loss, W&B's form, a summary")
args = parser.parse_args()


def crash(depth):
    if depth > 0:
        deeper(depth - 1)  # two functions by turns: Python prints every frame, none "repeated"
    if args.chained:
        try:
            {}["lr"]
        except KeyError as error:
            raise RuntimeError("no learning rate in the config") from error
    1 / 0


def deeper(depth):
    crash(depth)


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
        crash(args.deep)
    time.sleep(args.step_ms / 1000)
    run.log(step, loss=1.0 / step, epoch=1 + step // 10, total_steps=args.steps)
    if step % 10 == 0:
        path = os.path.join(run.checkpoint_dir, f"step-{step}.txt")
        with open(path, "w") as f:
            f.write(str(step))
        run.checkpoint(step, path)
else:
    run.eval("valid", args.steps, accuracy=0.5)
    if args.forms:
        run.log(args.steps + 1, acc=0.9)  # no loss
        run.log({"loss": 0.25, "acc": 0.95}, step=args.steps + 2)
        run.log(acc=0.97)  # the next step
        run.summary["best_acc"] = 0.97
        run.summary.update(final_loss=0.25, best_step=args.steps + 3)
