#!/usr/bin/env python3
"""A program run for the dependency tests: it writes what it was given by
the runs it runs after (its argv, the TRAINYARD_INPUTS file, run.inputs) to
OUT as JSON, then trains STEPS steps and reports a checkpoint it saved.

    inputs.py OUT STEPS [ARG ...]
"""
import json
import os
import sys

import trainyard

out, steps = sys.argv[1], int(sys.argv[2])
run = trainyard.init()
path = os.environ.get("TRAINYARD_INPUTS")
given = {
    "argv": sys.argv[3:],
    "inputs_file": json.load(open(path)) if path else None,
    "inputs": [{"name": i.name, "after": i.after, "dir": i.dir, "checkpoint": i.checkpoint, "summary": i.summary}
               for i in run.inputs],
}
with open(out, "w") as f:
    json.dump(given, f)

for step in range(1, steps + 1):
    run.log(step, loss=1.0 / step)
checkpoint = os.path.join(run.checkpoint_dir, "step-%d.txt" % steps)
with open(checkpoint, "w") as f:
    f.write("weights of %s\n" % run.name)
run.checkpoint(steps, checkpoint)
run.eval("test", steps, accuracy=0.5 + 0.01 * steps)
run.summary["best"] = 0.25 * steps
