#!/usr/bin/python3
"""The sweep benchmark, in one run on the same two cores:

1. the search space of SWEEP (default transe-umls-sweep.json) as a full
   grid with `trainyard run`: the best objective, the trial-epochs, the wall time;
2. the same sweep under ASHA (its "early_stopping"): the same figures, and
   the ratios the issue asks for (ASHA's best within 0.01 of the grid's,
   with <= 35 % of its trial-epochs);
3. Optuna (optuna_reference.py: SuccessiveHalvingPruner, a worker
   subprocess per trial) with the same space, budget and pruning ladder
   (its GridSampler for a grid sweep: the same 27 configurations);
   then the time each of Trainyard's ASHA sweep and Optuna needed to reach
   the better of their two best objectives (target: Trainyard first).

Trainyard's times come from its own progress lines (`trainyard run` prints
one per sweep whenever it changes, "... best valid/mrr 0.312, trial 14 ..."),
stamped as they arrive; Optuna's from its summary. Trial-epochs are read
from each trial's metrics.jsonl (the highest epoch its eval lines reached).

Usage: bench_sweep.py BUILD [--sweep FILE] [--out DIR] [--skip-grid] [--skip-optuna]
Exit status: 0 every target met, 1 a target missed, 2 no data or a bad build."""

import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BEST = re.compile(r"best (\S+) (-?[0-9.eE+-]+|nan)")


def data_root():
    env = os.environ.get("TRAINYARD_KG_DATA")
    return env if env else os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "kg"))


def read_trials(runs_root, sweep_name, objective, maximize):
    """Per trial folder of the sweep: (epochs reached, best objective)."""
    out = {}
    split, metric = objective.split("/", 1)
    for name in sorted(os.listdir(runs_root)):
        if not re.fullmatch(re.escape(sweep_name) + r"-[0-9]+", name):
            continue
        path = os.path.join(runs_root, name, "metrics.jsonl")
        epochs, best = 0, None
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    if rec.get("type") != "eval" or rec.get("split") != split:
                        continue
                    epochs = max(epochs, int(rec.get("epoch", 0)))
                    v = rec.get(metric)
                    if isinstance(v, (int, float)) and v == v:
                        best = v if best is None else (max(best, v) if maximize else min(best, v))
        except OSError:
            pass
        out[name] = (epochs, best)
    return out


def run_trainyard(build, experiment, out_dir, label):
    """Runs `trainyard run` on `experiment`; returns (wall seconds, [(t, best)], exit status)."""
    path = os.path.join(out_dir, label + ".json")
    with open(path, "w") as f:
        json.dump(experiment, f, indent=1)
    cmd = [os.path.join(build, "bin", "trainyard"), "run", path, "--threads", "1"]
    print(f"[{label}] {' '.join(cmd)}", flush=True)
    start = time.monotonic()
    bests = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(out_dir, label + ".log"), "w") as log:
        for line in proc.stdout:
            t = time.monotonic() - start
            log.write(f"{t:9.3f} {line}")
            m = BEST.search(line)
            if m and m.group(2) != "nan":
                bests.append((t, float(m.group(2))))
    status = proc.wait()
    return time.monotonic() - start, bests, status


def first_time(bests, target, maximize, slack=0.0):
    """The first time a best reached `target`, within `slack` (the rounding of printed values)."""
    for t, v in bests:
        if (v >= target - slack) if maximize else (v <= target + slack):
            return t
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--sweep", default=os.path.join(HERE, "transe-umls-sweep.json"))
    ap.add_argument("--out")
    ap.add_argument("--skip-grid", action="store_true")
    ap.add_argument("--skip-optuna", action="store_true")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    with open(args.sweep) as f:
        template = json.load(f)
    data = os.path.join(data_root(), "UMLS")
    if not os.path.isfile(os.path.join(data, "train.txt")):
        print(f"bench_sweep: no UMLS data at {data} (set TRAINYARD_KG_DATA to the folder holding UMLS/)",
              file=sys.stderr)
        return 2
    out = args.out or tempfile.mkdtemp(prefix="bench-sweep-")
    os.makedirs(out, exist_ok=True)
    sweep = template["sweeps"][0]
    sweep["base"]["data"]["path"] = data
    objective = sweep["objective"]["metric"]
    maximize = sweep["objective"].get("mode", "max") == "max"

    results = {}
    for label in ("grid", "asha"):
        if label == "grid" and args.skip_grid:
            continue
        exp = copy.deepcopy(template)
        exp["name"] = f"bench-sweep-{label}"
        exp["runs_root"] = os.path.join(out, label)
        if label == "grid":
            exp["sweeps"][0].pop("early_stopping", None)
        wall, bests, status = run_trainyard(build, exp, out, label)
        trials = read_trials(exp["runs_root"], sweep["name"], objective, maximize)
        values = [b for _, b in trials.values() if b is not None]
        best = (max(values) if maximize else min(values)) if values else None
        results[label] = {"wall": wall, "bests": bests, "status": status, "trials": len(trials),
                          "epochs": sum(e for e, _ in trials.values()), "best": best}
        print(f"[{label}] {len(trials)} trials, {results[label]['epochs']} trial-epochs, best {objective} "
              f"{best}, {wall:.1f} s, exit {status}", flush=True)

    if not args.skip_optuna:
        space_file = os.path.join(out, "optuna-sweep.json")
        with open(space_file, "w") as f:
            json.dump(sweep, f)
        cmd = ["/usr/bin/python3", os.path.join(HERE, "optuna_reference.py"), "--space", space_file,
               "--worker", os.path.join(build, "bin", "trainyard-worker"), "--out", os.path.join(out, "optuna"),
               "--data", data, "--sampler", "grid" if sweep.get("method", "grid") == "grid" else "random",
               "--jobs", "2"]
        print("[optuna] " + " ".join(cmd), flush=True)
        start = time.monotonic()
        status = subprocess.call(cmd, stdout=open(os.path.join(out, "optuna.log"), "w"), stderr=subprocess.STDOUT)
        wall = time.monotonic() - start
        summary_path = os.path.join(out, "optuna", "summary.json")
        if status == 0 and os.path.isfile(summary_path):
            with open(summary_path) as f:
                s = json.load(f)
            best = s.get("best") or {}
            results["optuna"] = {"wall": wall, "best": best.get("value"), "epochs": s.get("total_trial_epochs"),
                                 "bests": [(b["wall_s"], b["value"]) for b in s.get("best_trace", [])]}
            print(f"[optuna] best {objective} {results['optuna']['best']}, {results['optuna']['epochs']} "
                  f"trial-epochs, {wall:.1f} s", flush=True)
        else:
            print(f"[optuna] failed (exit {status}); see {out}/optuna.log", flush=True)

    ok = True
    if "grid" in results and "asha" in results and results["grid"]["best"] is not None:
        g, a = results["grid"], results["asha"]
        gap = (g["best"] - a["best"]) if maximize else (a["best"] - g["best"])
        share = a["epochs"] / max(1, g["epochs"])
        met = gap <= 0.01 and share <= 0.35
        ok = ok and met
        print(f"ratio: ASHA best {a['best']:.4f} vs grid best {g['best']:.4f} (gap {gap:.4f}, target <= 0.01); "
              f"ASHA trial-epochs {a['epochs']} / grid {g['epochs']} = {share:.1%} (target <= 35 %); "
              f"wall {a['wall']:.0f} s / {g['wall']:.0f} s: {'met' if met else 'MISSED'}")
    if "asha" in results and "optuna" in results and results["optuna"]["best"] is not None:
        a, o = results["asha"], results["optuna"]
        target = max(a["best"], o["best"]) if maximize else min(a["best"], o["best"])
        # Trainyard's progress lines print three decimals: a best counts from
        # the line that shows it rounded; Optuna's times are exact. The same
        # slack for both keeps the comparison fair.
        ta = first_time(a["bests"], target, maximize, 0.0005)
        to = first_time(o["bests"], target, maximize, 0.0005)
        first = ta is not None and (to is None or ta <= to)
        ok = ok and first
        fmt = lambda t: "never" if t is None else f"{t:.1f} s"
        print(f"ratio: time to {objective} {target:.4f} (the better best): Trainyard ASHA {fmt(ta)}, "
              f"Optuna {fmt(to)}: {'Trainyard first' if first else 'MISSED (Optuna first)'}")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"folder: {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
