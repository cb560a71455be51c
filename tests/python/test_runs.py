"""trainyard.runs(): run folders read back from Python."""

import importlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import types
import unittest
import warnings

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, PYTHON_DIR)
import trainyard  # noqa: E402

sys.path.remove(PYTHON_DIR)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def lines(*messages):
    return "".join(json.dumps(m) + "\n" for m in messages)


class RunsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tyruns")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = os.path.join(self.tmp, "trainyard-runs")
        os.mkdir(self.root)

    def script_runs(self, **bodies):
        """Runs each body as a script whose init() writes ROOT/NAME, all at once."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        env["PYTHONPATH"] = PYTHON_DIR
        procs = []
        for name, body in bodies.items():
            script = os.path.join(self.tmp, name + ".py")
            write(script, "import trainyard\nrun = trainyard.init(run_dir=%r, config={'lr': 0.1, 'hidden': 8})\n"
                  % os.path.join(self.root, name) + textwrap.dedent(body))
            procs.append(subprocess.Popen([sys.executable, script], env=env, cwd=self.tmp,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for proc in procs:
            proc.communicate(timeout=15)

    def test_runs_root_of_script_runs(self):
        self.script_runs(good="""
            for step in range(1, 4):
                run.log(step, loss=1.0 / step, epoch=1)
                run.log({"acc": step / 10}, step=step)
            run.summary["best_acc"] = 0.2
            run.summary["best_acc"] = 0.3
            """, bad="""
            run.log(1, loss=1.0, grad=float("nan"))
            raise RuntimeError("boom")
            """)
        found = trainyard.runs(self.root)
        self.assertEqual([r.name for r in found], ["bad", "good"])
        bad, good = found
        self.assertEqual(good.state, "finished")
        self.assertEqual(bad.state, "failed")
        self.assertIsNone(good.attempt)
        self.assertEqual(good.path, os.path.join(self.root, "good"))
        self.assertEqual(good.config, {"lr": 0.1, "hidden": 8})
        self.assertEqual(good.summary, {"best_acc": 0.3})
        history = good.history()
        self.assertEqual([row["step"] for row in history], [1, 2, 3])
        self.assertEqual(history[1]["loss"], 0.5)
        self.assertEqual(history[1]["acc"], 0.2)
        self.assertEqual(history[1]["epoch"], 1)
        self.assertIsInstance(history[1]["wall"], float)
        self.assertEqual([row["acc"] for row in good.history(keys=["acc"])], [0.1, 0.2, 0.3])
        self.assertNotIn("loss", good.history(keys="acc")[0])
        self.assertTrue(math.isnan(bad.history()[0]["grad"]))
        self.assertEqual(good.skipped_lines, 0)
        self.assertEqual((good.tags, good.note), ([], ""))
        with self.assertRaises(AttributeError):
            good.state = "failed"
        # One run folder named directly.
        [one] = trainyard.runs(os.path.join(self.root, "good"))
        self.assertEqual((one.name, one.summary), ("good", {"best_acc": 0.3}))

    def test_hand_written_folders_attempts_states_notes(self):
        write(os.path.join(self.root, "x", "spec.json"), json.dumps({"name": "x", "model": {"type": "transe"}}))
        write(os.path.join(self.root, "x", "status.json"), json.dumps({"state": "stopped", "exit_code": 4}))
        write(os.path.join(self.root, "x", "notes.json"), json.dumps({"tags": ["best"], "note": "keep"}))
        write(os.path.join(self.root, "x.attempt-1", "spec.json"), json.dumps({"name": "x"}))
        write(os.path.join(self.root, "x.attempt-1", "metrics.jsonl"),
              lines({"type": "metric", "step": 1, "loss": 2.0, "wall": 0.1},
                    {"type": "done", "status": "diverged", "exit_code": 3, "wall": 0.2}))
        write(os.path.join(self.root, "queued", "spec.json"), "{}")
        write(os.path.join(self.root, "empty", "other.txt"), "")
        write(os.path.join(self.root, ".hidden", "metrics.jsonl"), "")
        os.symlink(os.path.join(self.root, "x"), os.path.join(self.root, "linked"))
        by_name = {r.name: r for r in trainyard.runs(self.root)}
        self.assertEqual(sorted(by_name), ["queued", "x", "x.attempt-1"])
        x, old = by_name["x"], by_name["x.attempt-1"]
        self.assertEqual((x.state, x.attempt, x.tags, x.note), ("stopped", None, ["best"], "keep"))
        self.assertEqual(x.config, {"name": "x", "model": {"type": "transe"}})
        self.assertEqual((old.state, old.attempt), ("diverged", 1))
        self.assertEqual(by_name["queued"].state, "queued")

    def test_experiment_file(self):
        write(os.path.join(self.tmp, "exp", "runs", "a", "status.json"), json.dumps({"state": "finished"}))
        experiment = os.path.join(self.tmp, "exp", "exp.json")
        write(experiment, json.dumps({"name": "exp", "runs_root": "runs", "lanes": []}))
        self.assertEqual([r.name for r in trainyard.runs(experiment)], ["a"])
        # No runs_root: $XDG_DATA_HOME/trainyard/NAME.
        data = os.path.join(self.tmp, "data")
        write(os.path.join(data, "trainyard", "exp2", "b", "status.json"), json.dumps({"state": "failed"}))
        write(experiment, json.dumps({"name": "exp2", "lanes": []}))
        old = os.environ.get("XDG_DATA_HOME")
        os.environ["XDG_DATA_HOME"] = data
        try:
            self.assertEqual([(r.name, r.state) for r in trainyard.runs(experiment)], [("b", "failed")])
        finally:
            if old is None:
                del os.environ["XDG_DATA_HOME"]
            else:
                os.environ["XDG_DATA_HOME"] = old
        with self.assertRaises(FileNotFoundError):
            trainyard.runs(os.path.join(self.tmp, "nowhere"))

    def test_history_merges_steps_and_follows_a_resume(self):
        write(os.path.join(self.root, "r", "metrics.jsonl"), lines(
            {"type": "metric", "step": 1, "epoch": 1, "loss": 3.0, "wall": 1.0},
            {"type": "metric", "step": 1, "acc": 0.1, "wall": 1.1},
            {"type": "eval", "step": 1, "split": "valid", "accuracy": 0.5, "wall": 1.2},
            {"type": "metric", "step": 2, "loss": 2.0, "wall": 2.0},
            {"type": "metric", "step": 3, "loss": None, "wall": 3.0},
            {"type": "metric", "step": 2, "loss": 1.5, "wall": 4.0},  # resumed from step 1
            {"type": "summary", "best": 1.0, "wall": 4.1},
            {"type": "summary", "best": 2.0, "other": None, "wall": 4.2},
            {"type": "eval", "step": 4, "epoch": 2, "split": "test", "mrr": 0.25, "hits@10": 0.5, "wall": 5.0}))
        [run] = trainyard.runs(os.path.join(self.root, "r"))
        self.assertEqual(run.history(), [{"step": 1, "epoch": 1, "wall": 1.1, "loss": 3.0, "acc": 0.1,
                                          "valid/accuracy": 0.5},
                                         {"step": 2, "wall": 4.0, "loss": 1.5},
                                         {"step": 4, "epoch": 2, "wall": 5.0, "test/mrr": 0.25,
                                          "test/hits@10": 0.5}])
        self.assertEqual(run.history(keys=["valid/accuracy"]),
                         [{"step": 1, "epoch": 1, "wall": 1.1, "valid/accuracy": 0.5}])
        self.assertEqual(run.summary["best"], 2.0)
        self.assertTrue(math.isnan(run.summary["other"]))
        self.assertEqual(run.state, "queued")  # no status.json, no done line

    def test_garbage_lines_counted_and_torn_last_line_ignored(self):
        os.mkdir(os.path.join(self.root, "r"))
        with open(os.path.join(self.root, "r", "metrics.jsonl"), "wb") as f:
            f.write(b"not json\n[1]\n" + b'{"type":"metric","step":1,"loss":NaN}\n' + b'{"type":"metric","step":"2"}\n'
                    + b'{"no":"type"}\n' + b'{"type":"metric","step":1,"loss":1.0,"wall":0.5}\n'
                    + b'{"type":"metric","step":1,"wall":"late"}\n' + b'{"type":"log","text":"\xff"}\n'
                    + b'{"type":"log","deep":' + b"[" * 17 + b"]" * 17 + b"}\n"
                    + b'{"type":"metric","step":2,"loss":' + b"1" * (70 * 1024) + b"}\n"
                    + b'{"type":"metric","step":5,"loss":0.1')
        [run] = trainyard.runs(self.root)
        self.assertEqual(run.history(), [{"step": 1, "wall": 0.5, "loss": 1.0}])
        self.assertEqual(run.skipped_lines, 9)

    def test_fifo_and_link_are_refused_without_blocking(self):
        folder = os.path.join(self.root, "r")
        os.mkdir(folder)
        os.mkfifo(os.path.join(folder, "metrics.jsonl"))
        outside = os.path.join(self.tmp, "secret.json")
        write(outside, json.dumps({"state": "finished"}))
        os.symlink(outside, os.path.join(folder, "status.json"))
        result = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reader = threading.Thread(target=lambda: result.append(trainyard.runs(self.root)), daemon=True)
            reader.start()
            reader.join(10)
        self.assertFalse(reader.is_alive(), "runs() waited on a FIFO")
        [run] = result[0]
        self.assertEqual(run.state, "queued")  # the linked status.json was not read
        self.assertEqual(run.history(), [])
        texts = [str(w.message) for w in caught]
        self.assertTrue(any("metrics.jsonl is not a regular file (a FIFO)" in t for t in texts), texts)
        self.assertTrue(any("status.json is a link" in t for t in texts), texts)

    def test_history_as_dataframe(self):
        write(os.path.join(self.root, "r", "metrics.jsonl"),
              lines({"type": "metric", "step": 1, "loss": 1.0, "wall": 0.1}))
        [run] = trainyard.runs(self.root)
        # A stand-in module checks the call wherever pandas is not installed.
        stand_in = types.ModuleType("pandas")
        stand_in.DataFrame = lambda rows: ("frame", rows)
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = stand_in
        try:
            self.assertEqual(run.history(pandas=True), ("frame", [{"step": 1, "wall": 0.1, "loss": 1.0}]))
            sys.modules["pandas"] = None  # import fails
            with self.assertRaisesRegex(ImportError, "needs pandas"):
                run.history(pandas=True)
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved

    def test_history_as_a_real_dataframe(self):
        # The stand-in above checks the call; this checks what pandas makes of
        # the rows (Debian's python3-pandas: CTest runs this suite with it).
        try:
            pandas = importlib.import_module("pandas")
        except ImportError:
            self.skipTest("pandas is not installed for %s (Debian: python3-pandas)" % sys.executable)
        write(os.path.join(self.root, "r", "metrics.jsonl"), lines(
            {"type": "metric", "step": 1, "epoch": 1, "loss": 2.0, "wall": 0.1},
            {"type": "eval", "step": 1, "split": "valid", "accuracy": 0.5, "wall": 0.2},
            {"type": "metric", "step": 2, "epoch": 1, "loss": None, "lr": 0.1, "wall": 0.3}))
        [run] = trainyard.runs(self.root)
        frame = run.history(pandas=True)
        self.assertIsInstance(frame, pandas.DataFrame)
        self.assertEqual(list(frame["step"]), [1, 2])
        self.assertEqual(set(frame.columns), {"step", "epoch", "wall", "loss", "valid/accuracy", "lr"})
        self.assertEqual(frame["loss"].iloc[0], 2.0)
        self.assertTrue(math.isnan(frame["loss"].iloc[1]))  # null: NaN, a float column
        self.assertTrue(math.isnan(frame["valid/accuracy"].iloc[1]))  # no value at that step
        self.assertEqual(frame.set_index("step")["lr"].loc[2], 0.1)
        self.assertEqual(len(run.history(keys=["lr"], pandas=True)), 1)


if __name__ == "__main__":
    unittest.main()
