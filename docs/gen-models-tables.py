#!/usr/bin/env python3
"""Regenerates the tables of docs/models.md (## Models, ## Presets, ## Data
kinds, ## Run spec sections) from `trainyard-worker --list-models`, the one
place the keys are defined. --check exits 1 when the file is out of date
(a CTest runs it).

    python3 docs/gen-models-tables.py [--check] WORKER [docs/models.md]
"""
import json, subprocess, sys


def rng(p):
    if p.get("choices"):
        return ", ".join(json.dumps(c) for c in p["choices"])
    if "min" not in p and "max" not in p:
        return ""
    lo = "(" if p.get("min_exclusive") else "["
    text = f'{lo}{p.get("min", "")}, {p.get("max", "")}]'
    return text + (" or null" if p.get("nullable") else "")


def table(params):
    rows = ["| key | type | default | range | meaning |", "|---|---|---|---|---|"]
    for p in params:
        rows.append(f'| `{p["name"]}` | {p["type"]} | `{json.dumps(p["default"])}` | {rng(p)} | {p["help"]} |')
    return "\n".join(rows)


def generated(catalogue):
    models = ["## Models", ""]
    for m in catalogue["models"]:
        models += [f'### `{m["type"]}` ({m["task"]})', "", m["description"] + ".", "", table(m["params"]), "",
                   "Defaults that differ from the global ones: `" + json.dumps(m["defaults"], sort_keys=True) + "`", ""]
        if m.get("recipes"):
            models += ["Recipes (`model.recipe`; see [Recipes](#recipes)): the values each gives the keys a spec "
                       "leaves out.", "", "| recipe | values | what it is |", "|---|---|---|"]
            for r in m["recipes"]:
                values = {k: r[k] for k in ("model", "train", "eval") if r.get(k)}
                models.append(f'| `{r["name"]}` | `{json.dumps(values, sort_keys=True)}` | {r["fits"]} |')
            models.append("")
    presets = ["## Presets", "",
               "Published configurations, offered in the palette's \"Published configurations\" group. Each",
               "is a partial run spec over the model's defaults; the data folder is yours to choose.", "",
               "| preset | spec | source and measurement |", "|---|---|---|"]
    for p in catalogue.get("presets", []):
        presets.append(f'| {p["name"]} | `{json.dumps(p["spec"], sort_keys=True)}` | {p["source"]} |')
    presets.append("")
    kinds = ["## Data kinds", ""]
    for d in catalogue["data_kinds"]:
        kinds += [f'### `{d["kind"]}` ({d["task"]})', "", d["description"] + ".", "", table(d["params"]), ""]
    kinds += ["## Run spec sections", ""]
    for s in ("train", "eval", "checkpoint", "report"):
        kinds += [f"### `{s}`", "", table(catalogue[s]), ""]
    return "\n".join(models), "\n".join(presets), "\n".join(kinds)


def replace(text, start, end, body):
    a = text.index(start)
    b = text.index(end, a + len(start))
    return text[:a] + body + "\n" + text[b:]


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv
    worker = args[0]
    path = args[1] if len(args) > 1 else "docs/models.md"
    catalogue = json.loads(subprocess.run([worker, "--list-models"], check=True, capture_output=True, text=True).stdout)
    models, presets, kinds = generated(catalogue)
    old = open(path).read()
    new = replace(old, "## Models\n", "## Presets\n", models)
    new = replace(new, "## Presets\n", "## Bring your own model", presets)
    new = replace(new, "## Data kinds\n", "## Mixed precision", kinds)
    if check:
        if new != old:
            print(f"{path} is out of date with {worker} --list-models: run python3 docs/gen-models-tables.py {worker}")
            return 1
        print(f"{path} matches --list-models")
        return 0
    open(path, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
