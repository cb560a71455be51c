#!/usr/bin/env python3
"""A script with settings of its own, for the program-config tests: its
flags come from argv ({name} substitution), its run.config from
trainyard.init(config=DEFAULTS) under TRAINYARD_CONFIG. It reports, as the
eval metric ``valid/agree``, 1 when every flag equals run.config's value
(and the defaults it was not given are still there), else 0; its flags as
metric extras; and what it saw to --seen-to.

    configured.py --lr LR --dim DIM --opt NAME [--seen-to FILE] [EXTRA...]
"""
import argparse
import json

import trainyard

DEFAULTS = {"lr": 0.5, "dim": 8, "opt": "adam", "layers": 3}

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, required=True)
parser.add_argument("--dim", type=int, required=True)
parser.add_argument("--opt", required=True)
parser.add_argument("--seen-to")
parser.add_argument("extra", nargs="*")
args = parser.parse_args()

run = trainyard.init(config=DEFAULTS)
agree = (run.config["lr"] == args.lr and run.config["dim"] == args.dim and run.config["opt"] == args.opt
         and run.config["layers"] == DEFAULTS["layers"])
if args.seen_to:
    with open(args.seen_to, "w") as f:
        json.dump({"config": run.config, "args": vars(args)}, f)
for step in range(1, 4):
    run.log(step, loss=1.0 / step, lr=args.lr, dim=float(args.dim))
run.eval("valid", 3, agree=1.0 if agree else 0.0)
