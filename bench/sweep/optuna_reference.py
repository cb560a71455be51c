#!/usr/bin/python3
"""Optuna's side of the sweep benchmark: the same search space
over the same training (the real trainyard-worker, TransE on UMLS by
default), searched by Optuna with its SuccessiveHalvingPruner.

Each trial runs the worker as a subprocess, as Optuna's docs have an
objective do with an external trainer: the objective reads the eval lines
of the run's metrics.jsonl as they are written, calls trial.report(value,
epoch) and, when trial.should_prune(), kills the worker and raises
optuna.TrialPruned. A pruned trial is over for good (Optuna's "flavoured"
ASHA prunes; it never pauses nor promotes). A trial's value is its best
reported objective (what Trainyard's sweep calls a trial's objective); a
worker that exits non-zero, or an objective that reads NaN, fails the trial
and the study goes on.

The space is a JSON file in the format of a Trainyard sweep's "space"
(docs/experiment-format.md: {"train.lr": {"log_uniform": [1e-4, 0.1]},
"model.dim": {"values": [50, 100]}, "model.margin": {"range": [1, 9],
"step": 4}, ...}), or a whole sweep entry ({"space": ..., "base": ...,
"objective": ..., "early_stopping": ..., "trials": ..., "seed": ...}), whose
base, objective, early stopping, trial count and seed are then used unless
flags say otherwise. Trial n (0-based) trains with train.seed = base seed +
n unless the space sets it, as Trainyard's trials do.

Prints one line per trial (value, epochs, seconds) and at the end the best
value, the total trial-epochs and the wall time at which each new best was
reached; writes the same as JSON (--summary, default OUT/summary.json).

--jobs (default 2: the two cores) runs trials at once through Optuna's
n_jobs threads; the sampler's draws then interleave as trials end, so only
--jobs 1 repeats a study exactly for the same seed.

Exit status: 0 done, 2 bad input (no data, no worker, a bad space).
Run with Debian's /usr/bin/python3 (python3-optuna)."""

import argparse
import copy
import json
import math
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_DATA = "/work/shared/data/kg/UMLS"

# The built-in base: TransE (L1, margin, unit-norm entities, Bernoulli
# negatives) on UMLS at small sizes, evaluated on valid every epoch so that
# every rung has a value. train.epochs is set to --max-epochs.
DEFAULT_BASE = {
    "model": {"type": "transe", "dim": 50, "loss": "margin", "margin": 4.0, "negatives": 32, "norm": 1,
              "normalize_entities": True, "filter_negatives": True},
    "data": {"kind": "kg", "path": DEFAULT_DATA},
    "train": {"epochs": 100, "batch_size": 512, "lr": 0.005, "seed": 1},
    "eval": {"every_epochs": 1, "split": "valid"},
    "checkpoint": {"every_steps": 0},
}


def fail_input(message):
    print(f"optuna_reference: {message}", file=sys.stderr)
    sys.exit(2)


def set_value(spec, key, value):
    """Sets `value` at the dotted `key` of `spec`, making objects on the way (setSpecValue)."""
    *heads, last = key.split(".")
    for h in heads:
        inner = spec.get(h)
        if not isinstance(inner, dict):
            inner = spec[h] = {}
        spec = inner
    spec[last] = value


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def range_count(low, high, step):
    # As Trainyard's rangeCount: low, low + step, ... <= high.
    return int(math.floor((high - low) / step * (1 + 1e-12) + 1e-9)) + 1


def read_space(space):
    """The space as (key, kind, spec) triples, checked; problems name the JSON path."""
    if not isinstance(space, dict) or not space:
        fail_input("space: expected an object of keys (\"train.lr\": {...})")
    kinds = ("values", "range", "uniform", "log_uniform", "fixed")
    out = []
    for key in sorted(space):  # Trainyard's order: by name
        p = space[key]
        path = f"space.{key}"
        if not isinstance(p, dict):
            fail_input(f"{path}: expected an object")
        present = [k for k in kinds if k in p]
        if len(present) != 1:
            fail_input(f"{path}: expected exactly one of {', '.join(kinds)}")
        kind = present[0]
        if kind == "fixed":
            out.append((key, kind, {"value": p["fixed"]}))
        elif kind == "values":
            values = p["values"]
            if not isinstance(values, list) or not values:
                fail_input(f"{path}.values: expected a non-empty array")
            out.append((key, kind, {"values": values}))
        else:
            b = p[kind]
            if not (isinstance(b, list) and len(b) == 2 and all(isinstance(x, (int, float)) for x in b)):
                fail_input(f"{path}.{kind}: expected [low, high]")
            low, high = b
            if low > high:
                fail_input(f"{path}.{kind}: low {low} is above high {high}")
            if kind == "log_uniform" and low <= 0:
                fail_input(f"{path}.log_uniform: a log range must stay above 0, got [{low}, {high}]")
            step = p.get("step", 1)
            if kind == "range":
                integer = is_int(low) and is_int(high) and is_int(step)
            else:
                integer = bool(p.get("int", False))
            out.append((key, kind, {"low": low, "high": high, "step": step, "int": integer}))
    return out


def grid_size(space):
    n = 1
    for _, kind, s in space:
        if kind == "values":
            n *= len(s["values"])
        elif kind == "range":
            n *= range_count(s["low"], s["high"], s["step"])
        elif kind != "fixed":
            return None
    return n


def suggest(trial, space):
    """The trial's values, one per key, drawn through Optuna's suggest API."""
    values = {}
    for key, kind, s in space:
        if kind == "fixed":
            v = s["value"]
        elif kind == "values":
            choices = s["values"]
            if all(c is None or isinstance(c, (bool, int, float, str)) for c in choices):
                v = trial.suggest_categorical(key, choices)
            else:  # Optuna's categoricals hold scalars only: draw an index
                v = choices[trial.suggest_categorical(key + "#index", list(range(len(choices))))]
        elif kind == "range":
            n = range_count(s["low"], s["high"], s["step"])
            last = s["low"] + (n - 1) * s["step"]
            if s["int"]:
                v = trial.suggest_int(key, s["low"], last, step=s["step"])
            else:
                v = float(f"{trial.suggest_float(key, s['low'], last, step=s['step']):.12g}")
        else:
            log = kind == "log_uniform"
            if s["int"]:
                v = trial.suggest_int(key, int(s["low"]), int(s["high"]), log=log)
            else:
                v = trial.suggest_float(key, s["low"], s["high"], log=log)
        values[key] = v
    return values


class Runner:
    def __init__(self, args, base, space, split, metric, maximize):
        self.args, self.base, self.space = args, base, space
        self.split, self.metric, self.maximize = split, metric, maximize
        self.lock = threading.Lock()
        self.start = None
        self.records = []  # per trial, in the order they ended
        self.best = None
        self.trace = []  # each new best: when, what, who
        self.children = set()

    def better(self, a, b):
        return b is None or (a > b if self.maximize else a < b)

    def note(self, trial_number, epoch, value):
        with self.lock:
            if self.better(value, self.best):
                self.best = value
                self.trace.append({"wall_s": round(time.monotonic() - self.start, 3), "value": value,
                                   "trial": trial_number, "epoch": epoch})

    def objective(self, trial):
        import optuna

        n = trial.number
        values = suggest(trial, self.space)
        spec = copy.deepcopy(self.base)
        for key, v in values.items():
            set_value(spec, key, v)
        spec["name"] = f"optuna-{n + 1}"
        set_value(spec, "train.epochs", self.args.max_epochs)
        if "train.seed" not in values:
            set_value(spec, "train.seed", int(self.base.get("train", {}).get("seed", 1)) + n)
        folder = os.path.join(self.args.out, "trials", f"{n + 1:04d}")
        os.makedirs(folder, exist_ok=True)
        spec_path = os.path.join(folder, "spec.json")
        run_dir = os.path.join(folder, "run")
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)
        metrics_path = os.path.join(run_dir, "metrics.jsonl")

        begun = time.monotonic()
        log = open(os.path.join(folder, "worker.log"), "wb")
        child = subprocess.Popen([self.args.worker, "--spec", spec_path, "--run-dir", run_dir,
                                  "--threads", str(self.args.threads)],
                                 stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        with self.lock:
            self.children.add(child)
        state, best, epochs, reported, error = "finished", None, 0, set(), None
        try:
            stream, buf = None, b""
            while True:
                ended = child.poll() is not None  # before the read: then it reads everything
                if stream is None and os.path.exists(metrics_path):
                    stream = open(metrics_path, "rb")
                chunk = stream.read() if stream else b""
                if not chunk:
                    if ended:
                        break
                    time.sleep(self.args.poll)
                    continue
                *lines, buf = (buf + chunk).split(b"\n")
                for text in lines:
                    try:
                        d = json.loads(text)
                    except ValueError:
                        continue
                    if not isinstance(d, dict) or d.get("type") != "eval" or d.get("split") != self.split \
                            or self.metric not in d:
                        continue
                    epoch, value = int(d["epoch"]), float(d[self.metric])
                    if epoch in reported:
                        continue  # the final evaluation repeats the last epoch's
                    reported.add(epoch)
                    epochs = max(epochs, epoch)
                    if math.isnan(value):
                        state = "failed"
                        raise RuntimeError(f"{self.split}/{self.metric} is NaN at epoch {epoch}")
                    if self.better(value, best):
                        best = value
                    self.note(n, epoch, value)
                    trial.report(value, epoch)
                    if trial.should_prune():
                        state = "pruned"
                        raise optuna.TrialPruned(f"pruned at epoch {epoch}")
            if stream:
                stream.close()
            rc = child.wait()
            if rc != 0:
                state = "failed"
                raise RuntimeError(f"the worker exited with status {rc} (see {folder}/worker.log)")
            if best is None:
                state = "failed"
                raise RuntimeError(f"no {self.split}/{self.metric} reported")
            return best
        except RuntimeError as e:
            error = str(e)
            raise
        finally:
            if child.poll() is None:
                child.kill()  # pruned or failed: nothing of it is needed any more
            child.wait()
            log.close()
            with self.lock:
                self.children.discard(child)
            seconds = time.monotonic() - begun
            record = {"trial": n, "params": values, "state": state, "value": best, "epochs": epochs,
                      "seconds": round(seconds, 3), "ended_s": round(time.monotonic() - self.start, 3)}
            if error:
                record["error"] = error
            with self.lock:
                self.records.append(record)
            shown = "-" if best is None else f"{best:.4f}"
            params = " ".join(f"{k}={v}" for k, v in values.items())
            print(f"trial {n + 1}: {self.split}/{self.metric} {shown}, {epochs} epochs, {seconds:.2f} s, {state}"
                  + (f" ({error})" if error else "") + f" | {params}", flush=True)

    def kill_all(self):
        with self.lock:
            for c in self.children:
                c.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--space", required=True, help="JSON: a sweep's space, or a whole sweep entry")
    ap.add_argument("--base", help="JSON run spec to search over (default: TransE on UMLS, small)")
    ap.add_argument("--data", help=f"KG folder (train/valid/test.txt); default {DEFAULT_DATA} "
                    "or the base's data.path")
    ap.add_argument("--worker", default=os.path.join(ROOT, "build", "bin", "trainyard-worker"))
    ap.add_argument("--out", help="folder for the trials' run folders and the summary (default: a new one in /tmp)")
    ap.add_argument("--summary", help="summary JSON (default OUT/summary.json)")
    ap.add_argument("--trials", type=int, help="trial budget (default: the sweep's, else the grid's size, else 27)")
    ap.add_argument("--max-epochs", type=int, help="train.epochs of every trial (default: the sweep's max, else 100)")
    ap.add_argument("--min-resource", type=int, help="SuccessiveHalvingPruner's min_resource (default: sweep's, 1)")
    ap.add_argument("--reduction-factor", type=int, help="its reduction_factor (default: the sweep's eta, else 3)")
    ap.add_argument("--sampler", choices=("tpe", "random", "grid"), default="tpe")
    ap.add_argument("--seed", type=int, help="the sampler's seed (default: the sweep's, else 1)")
    ap.add_argument("--objective", help="split/metric (default: the sweep's, else valid/mrr)")
    ap.add_argument("--mode", choices=("max", "min"), help="default: the sweep's, else max")
    ap.add_argument("--jobs", type=int, default=2, help="trials at once (Optuna's n_jobs; default 2, two cores)")
    ap.add_argument("--threads", type=int, default=1, help="the worker's --threads (default 1)")
    ap.add_argument("--poll", type=float, default=0.005, help="seconds between reads of metrics.jsonl")
    args = ap.parse_args()

    try:
        import optuna
    except ImportError:
        fail_input("optuna is not installed (Debian: apt-get install python3-optuna; run with /usr/bin/python3)")

    try:
        with open(args.space) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail_input(f"{args.space}: {e}")
    sweep = doc if isinstance(doc, dict) and isinstance(doc.get("space"), dict) else {"space": doc}
    space = read_space(sweep["space"])
    stopping = sweep.get("early_stopping") or {}
    objective = sweep.get("objective") or {}
    if args.base:
        try:
            with open(args.base) as f:
                base = json.load(f)
        except (OSError, ValueError) as e:
            fail_input(f"{args.base}: {e}")
    else:
        base = copy.deepcopy(sweep.get("base") or DEFAULT_BASE)
    base.pop("repeat", None)
    data = args.data or base.get("data", {}).get("path") or DEFAULT_DATA
    missing = [s for s in ("train.txt", "valid.txt", "test.txt") if not os.path.isfile(os.path.join(data, s))]
    if missing:
        fail_input(f"no KG data in {data} (missing {', '.join(missing)}); the benchmark needs UMLS there "
                   f"or --data FOLDER")
    set_value(base, "data.path", os.path.abspath(data))
    if not (os.path.isfile(args.worker) and os.access(args.worker, os.X_OK)):
        fail_input(f"no worker at {args.worker} (build trainyard-worker, or --worker PATH)")

    args.max_epochs = args.max_epochs or int(stopping.get("max") or 100)
    min_resource = args.min_resource or int(stopping.get("min") or 1)
    eta = args.reduction_factor or int(stopping.get("eta") or 3)
    seed = args.seed if args.seed is not None else int(sweep.get("seed", 1))
    metric_name = args.objective or objective.get("metric") or "valid/mrr"
    if "/" not in metric_name:
        fail_input(f"objective: expected split/metric, got {metric_name!r}")
    split, metric = metric_name.split("/", 1)
    maximize = (args.mode or objective.get("mode") or "max") == "max"
    trials = args.trials or int(sweep.get("trials") or 0) or grid_size(space) or 27
    if args.out is None:
        import tempfile
        args.out = tempfile.mkdtemp(prefix="optuna-reference-")
    os.makedirs(args.out, exist_ok=True)
    summary_path = args.summary or os.path.join(args.out, "summary.json")

    if args.sampler == "tpe":
        sampler = optuna.samplers.TPESampler(seed=seed)
    elif args.sampler == "random":
        sampler = optuna.samplers.RandomSampler(seed=seed)
    else:
        grid = {}
        for key, kind, s in space:
            if kind == "values":
                grid[key] = s["values"]
            elif kind == "range":
                grid[key] = [s["low"] + i * s["step"] for i in range(range_count(s["low"], s["high"], s["step"]))]
            elif kind != "fixed":
                fail_input(f"space.{key}: --sampler grid needs discrete keys (values, range, fixed)")
        sampler = optuna.samplers.GridSampler(grid, seed=seed)
    pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=min_resource, reduction_factor=eta)
    # Each trial's line says how it ended (and why it failed): Optuna's own
    # warnings would repeat a failed trial's traceback.
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(direction="maximize" if maximize else "minimize", sampler=sampler, pruner=pruner)

    runner = Runner(args, base, space, split, metric, maximize)
    print(f"optuna {optuna.__version__}: {trials} trials of {args.max_epochs} epochs, {args.sampler} sampler "
          f"(seed {seed}), SuccessiveHalvingPruner(min_resource={min_resource}, reduction_factor={eta}), "
          f"{args.jobs} at once; runs in {args.out}", flush=True)
    runner.start = time.monotonic()
    try:
        study.optimize(runner.objective, n_trials=trials, n_jobs=args.jobs, catch=(RuntimeError,))
    except KeyboardInterrupt:
        runner.kill_all()
        raise
    wall = time.monotonic() - runner.start

    records = sorted(runner.records, key=lambda r: r["trial"])
    total_epochs = sum(r["epochs"] for r in records)
    counts = {s: sum(1 for r in records if r["state"] == s) for s in ("finished", "pruned", "failed")}
    best_record = None
    for r in records:
        if r["state"] != "failed" and r["value"] is not None and (
                best_record is None or runner.better(r["value"], best_record["value"])):
            best_record = r
    summary = {
        "tool": "optuna", "optuna_version": optuna.__version__, "sampler": args.sampler, "seed": seed,
        "pruner": {"name": "SuccessiveHalvingPruner", "min_resource": min_resource, "reduction_factor": eta},
        "jobs": args.jobs, "worker_threads": args.threads, "max_epochs": args.max_epochs, "trials": trials,
        "objective": metric_name, "mode": "max" if maximize else "min", "data": base["data"]["path"],
        "states": counts, "total_trial_epochs": total_epochs, "wall_s": round(wall, 3),
        "best": None if best_record is None else {
            "value": best_record["value"], "trial": best_record["trial"], "params": best_record["params"],
            "reached_s": next((t["wall_s"] for t in runner.trace if t["value"] == best_record["value"]), None)},
        "best_trace": runner.trace, "trial_records": records,
    }
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1)
    if best_record is None:
        print("best: none (every trial failed)")
    else:
        print(f"best {metric_name} {best_record['value']:.4f} (trial {best_record['trial'] + 1}: "
              + " ".join(f"{k}={v}" for k, v in best_record["params"].items()) + ")")
    print(f"{len(records)} trials ({counts['finished']} finished, {counts['pruned']} pruned, {counts['failed']} "
          f"failed), {total_epochs} trial-epochs, {wall:.1f} s")
    print("new bests at: " + ", ".join(f"{t['wall_s']:.2f} s {t['value']:.4f}" for t in runner.trace))
    print(f"summary: {summary_path}")


if __name__ == "__main__":
    main()
