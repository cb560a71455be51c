#!/usr/bin/env python3
"""One KG configuration over several seeds: the test MRR at each periodic
evaluation and the mean of the last ones (what docs/results.md's recipe
studies report). Keys the command line leaves out are the recipe's.

    python3 bench/quality/seeds.py [--worker W] [--seeds "1 2 3"] [--evals 3]
        MODEL DATASET [section.key=JSON ...]

DATASET is a folder under $TRAINYARD_SHARED_DATA/kg (default
../shared/data/kg beside the source tree) or a path. Example, the row
"Adagrad lr 0.1" of the UMLS study:

    python3 bench/quality/seeds.py transe UMLS train.optimizer='"adagrad"' train.lr=0.1
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
source = os.path.dirname(os.path.dirname(here))

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--worker", default=os.path.join(source, "build", "bin", "trainyard-worker"))
parser.add_argument("--seeds", default="1 2 3")
parser.add_argument("--evals", type=int, default=3, help="test evaluations over the run's epochs")
parser.add_argument("--threads", type=int, default=2)
parser.add_argument("model")
parser.add_argument("dataset")
parser.add_argument("keys", nargs="*", metavar="section.key=JSON")
args = parser.parse_args()

data = args.dataset
if not os.path.isdir(data):
    shared = os.environ.get("TRAINYARD_SHARED_DATA", os.path.join(source, "..", "shared", "data"))
    data = os.path.join(shared, "kg", args.dataset)
if not os.path.isdir(data):
    sys.exit(f"seeds.py: no dataset folder {data}")
if not os.access(args.worker, os.X_OK):
    sys.exit(f"seeds.py: {args.worker} is not built")

base = {"model": {"type": args.model}, "data": {"kind": "kg", "path": os.path.abspath(data)}, "train": {},
        "eval": {"split": "test"}}
for item in args.keys:
    key, sep, value = item.partition("=")
    section, dot, name = key.partition(".")
    if not sep or not dot or section not in base:
        sys.exit(f"seeds.py: {item}: expected section.key=JSON with section model, data, train or eval")
    try:
        base[section][name] = json.loads(value)
    except json.JSONDecodeError as e:
        sys.exit(f"seeds.py: {item}: the value is not JSON ({e})")


def epochs_of(spec, folder):
    """The epochs the run will train: the spec's, else what the worker's --check resolves."""
    if "epochs" in spec["train"]:
        return spec["train"]["epochs"]
    path = os.path.join(folder, "check.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out = subprocess.run([args.worker, "--check", "--spec", path], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        try:
            values = json.loads(line).get("values", {})
        except (json.JSONDecodeError, AttributeError):
            continue
        if "train.epochs" in values:
            return values["train.epochs"]
    return None


rows = []
with tempfile.TemporaryDirectory(prefix="seeds-") as tmp:
    for seed in [int(s) for s in args.seeds.split()]:
        spec = json.loads(json.dumps(base))
        spec["name"] = f"seed-{seed}"
        spec["train"]["seed"] = seed
        epochs = epochs_of(spec, tmp)
        if epochs and args.evals > 0:
            spec["eval"]["every_epochs"] = max(1, epochs // args.evals)
        path = os.path.join(tmp, f"seed-{seed}.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        run = os.path.join(tmp, f"seed-{seed}")
        done = subprocess.run([args.worker, "--spec", path, "--run-dir", run, "--threads", str(args.threads)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"seeds.py: seed {seed}: the worker exited {done.returncode}: {done.stderr.strip()[-400:]}")
        with open(os.path.join(run, "metrics.jsonl")) as f:
            mrr = [json.loads(line)["mrr"] for line in f if '"type":"eval"' in line]
        rows.append(mrr)
        print(f"seed {seed}: " + " / ".join(f"{m:.3f}" for m in mrr), flush=True)
last = [r[-1] for r in rows if r]
if last:
    print(f"mean of the last: {statistics.mean(last):.4f} (min {min(last):.3f}, max {max(last):.3f}, "
          f"{len(last)} seeds)")
