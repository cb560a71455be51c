"""`trainyard schema` against python3-jsonschema: the schema is a valid
draft 2020-12 schema, every example experiment and the built-in demo
validate against it, and a misspelt key or a value of the wrong type does
not. Twice: with the worker's catalogue (TRAINYARD_WORKER) and without one.
Also -o FILE.

Usage: check_experiment_schema.py TRAINYARD SOURCE_DIR
Exit 77 when jsonschema cannot be imported."""

import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError as e:
    print(f"skipped: python3-jsonschema is missing ({e})")
    sys.exit(77)


def schema_of(trainyard, worker):
    env = dict(os.environ, TRAINYARD_WORKER=worker)
    out = subprocess.run([trainyard, "schema"], env=env, capture_output=True, check=True, timeout=60)
    return json.loads(out.stdout)


def errors(validator, doc):
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(doc)]


def main():
    trainyard, source = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(source, "examples", "**", "*.json"), recursive=True))
    files.append(os.path.join(source, "resources", "demo.json"))
    assert len(files) > 1, files
    worker = os.environ.get("TRAINYARD_WORKER", "")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # A TRAINYARD_WORKER that is not a program: no catalogue, no worker looked for elsewhere.
        variants = [("without a catalogue", os.path.join(tmp, "no-worker"))]
        if worker and os.access(worker, os.X_OK):
            variants.append(("with the worker's catalogue", worker))
        else:
            print("no worker built: the schema with a catalogue is not checked")
        for what, program in variants:
            schema = schema_of(trainyard, program)
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            for path in files:
                with open(path, encoding="utf-8") as f:
                    doc = json.load(f)
                found = errors(validator, doc)
                if found:
                    failures.append(f"{what}: {path}: " + "; ".join(found))
            # Bad files the schema must refuse, made from the demo.
            with open(files[-1], encoding="utf-8") as f:
                demo = json.load(f)
            bad = {}
            bad["misspelt top-level key"] = dict(demo, lanez=[])
            lanes = copy.deepcopy(demo)
            lanes["lanes"][0]["slotz"] = 2
            bad["misspelt lane key"] = lanes
            slots = copy.deepcopy(demo)
            slots["lanes"][0]["slots"] = "two"
            bad["slots of the wrong type"] = slots
            name = dict(demo, name=7)
            bad["name of the wrong type"] = name
            if program == worker:
                dim = copy.deepcopy(demo)
                dim["lanes"][0]["runs"][0]["model"]["dimm"] = 64
                bad["misspelt model key"] = dim
                epochs = copy.deepcopy(demo)
                epochs["lanes"][0]["runs"][0].setdefault("train", {})["epochs"] = "many"
                bad["train.epochs of the wrong type"] = epochs
            for case, doc in bad.items():
                if not errors(validator, doc):
                    failures.append(f"{what}: {case}: validated")
            print(f"{what}: {len(files)} files valid, {len(bad)} bad ones refused")
        # -o FILE writes the same; a FILE that cannot be written is exit status 1, named.
        env = dict(os.environ, TRAINYARD_WORKER=variants[-1][1])
        written = os.path.join(tmp, "experiment.schema.json")
        subprocess.run([trainyard, "schema", "-o", written], env=env, capture_output=True, check=True, timeout=60)
        with open(written, encoding="utf-8") as f:
            if json.load(f) != schema:
                failures.append("schema -o FILE: not what stdout gets")
        nowhere = os.path.join(tmp, "missing", "x.json")
        done = subprocess.run([trainyard, "schema", "-o", nowhere], env=env, capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 1 or nowhere not in done.stderr:
            failures.append(f"schema -o {nowhere}: exit {done.returncode}, {done.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
