"""The trainyard Python module's protocol constants against the C++ tables.

    python3 tests/python/check_protocol_tables.py TABLES SOURCE_DIR VERSION

TABLES is trainyard-protocol-tables (tests/python/protocoltables.cpp), which
prints core/protocol's tables and LaunchSpec's run environment; SOURCE_DIR the
repository, whose python/ is imported; VERSION the C++ project's. Not named
test_*.py: it needs the C++ build, which `unittest discover` does not have.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

if len(sys.argv) < 4:
    sys.exit(__doc__)
TABLES, SOURCE_DIR, VERSION = sys.argv[1:4]
PYTHON_DIR = os.path.abspath(os.path.join(SOURCE_DIR, "python"))
sys.path.insert(0, PYTHON_DIR)

import trainyard  # noqa: E402
from trainyard import _protocol  # noqa: E402


def cpp(*args, stdin=None):
    done = subprocess.run([TABLES] + list(args), input=stdin, stdout=subprocess.PIPE, check=True)
    return json.loads(done.stdout)


class ProtocolTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cpp = cpp()

    def test_version(self):
        self.assertEqual(trainyard.PROTOCOL_VERSION, self.cpp["version"])

    def test_line_limit(self):
        self.assertEqual(trainyard.MAX_LINE_BYTES, self.cpp["max_line_bytes"])
        # The same lines pass on both sides, at the limit and one byte over.
        limit = self.cpp["max_line_bytes"]
        lines = [b'{"type":"stop","pad":"%s"}' % (b"x" * (n - 24)) for n in (limit - 1, limit, limit + 1)]
        self.assertEqual([len(line) for line in lines], [limit - 1, limit, limit + 1])
        stream = b"".join(line + b"\n" for line in lines)
        kept_cpp = [entry["ok"] for entry in cpp("--validate", stdin=stream)]
        splitter = _protocol.LineSplitter()
        kept_python = [line in splitter.feed(stream) for line in lines]
        self.assertEqual(kept_python, [True, True, False])
        # The decoder reports the oversized line (rejected); the splitter drops it silently.
        self.assertEqual(kept_cpp, [True, True, False])

    def test_controls(self):
        self.assertEqual(list(_protocol.CONTROLS), self.cpp["controls"])

    def test_exit_statuses(self):
        cpp_statuses = {int(code): status for code, status in self.cpp["exit_statuses"].items()}
        for status, code in trainyard.EXIT_CODES.items():
            self.assertEqual(cpp_statuses.get(code), status, "exit code %d" % code)
        # Every status the C++ knows has its code here (bad input is "failed" too).
        self.assertEqual(set(trainyard.EXIT_CODES), set(cpp_statuses.values()))

    def test_reserved_keys_hold_the_fields(self):
        # A metric named like a line's own field would overwrite it: every
        # field a line needs is reserved. "loss" is a metric, optional.
        self.assertLessEqual(set(self.cpp["required"]["metric"]), set(_protocol.METRIC_KEYS))
        self.assertEqual(set(self.cpp["fields"]["metric"]) - set(self.cpp["required"]["metric"]), {"loss"})
        self.assertLessEqual(set(self.cpp["fields"]["eval"]), set(_protocol.EVAL_KEYS))
        self.assertLessEqual(set(self.cpp["fields"]["summary"]), set(_protocol.SUMMARY_KEYS))
        # A summary line's values all fit in a reader's record.
        self.assertEqual(_protocol.MAX_SUMMARY_VALUES, self.cpp["max_fields"])

    def test_lines_pass_the_cpp_validator(self):
        """Every kind of line the module writes, with the fields the C++ builders write."""
        with tempfile.TemporaryDirectory() as work:
            run = trainyard.Run(run_dir=work, name="tables", token="tables-token")
            run.log(0, loss=1.5, total_steps=3, lr=0.1)
            run.log(1, loss=float("nan"))
            run.log(2, acc=0.9)  # no loss
            run.log({"loss": 0.5, "acc": 0.95}, step=3.0)
            run.summary["best_acc"] = 0.95
            run.summary.update({"k%d" % i: i for i in range(20)}, nan=float("nan"))  # two lines
            run.eval("valid", 1, epoch=1, accuracy=0.5)
            run.text("a warning", level="warning")
            run.checkpoint(1, os.path.join(work, "checkpoints", "step-1.pt"))
            run._emit({"type": "heartbeat", "step": 1})  # the heartbeat thread's line, without waiting a second
            run.finish("diverged")
            with open(run.metrics_path, "rb") as f:
                stream = run._hello() + f.read()
        lines = [json.loads(line) for line in stream.splitlines()]
        verdicts = cpp("--validate", stdin=stream)
        self.assertEqual(len(verdicts), len(lines))
        for line, verdict in zip(lines, verdicts):
            self.assertTrue(verdict["ok"], "%s: %s" % (line, verdict["error"]))
            self.assertLessEqual(set(self.cpp["required"][line["type"]]), set(line), line)
            if line["type"] != "metric":  # a metric line's loss is optional
                self.assertLessEqual(set(self.cpp["fields"][line["type"]]), set(line), line)
        summaries = [line for line in lines if line["type"] == "summary"]
        self.assertEqual([len(line) - 2 for line in summaries], [1, 16, 5])
        self.assertEqual({line["type"] for line in lines}, set(self.cpp["worker_messages"]))
        self.assertEqual(lines[0]["version"], self.cpp["version"])

    def test_run_variables(self):
        if "run_variables" not in self.cpp:
            self.skipTest("built without the orchestration core: no LaunchSpec to compare with")
        trainyard_names = {name for name in self.cpp["run_variables"] if name.startswith("TRAINYARD_")}
        self.assertEqual(set(_protocol.RUN_VARIABLES), trainyard_names)
        # No other TRAINYARD_ name in the module, in code or documentation, but the user's own.
        package = os.path.join(PYTHON_DIR, "trainyard")
        for name in sorted(os.listdir(package)):
            if name.endswith(".py"):
                with open(os.path.join(package, name)) as f:
                    for found in set(re.findall(r"TRAINYARD_[A-Z0-9_]+", f.read())):
                        self.assertIn(found, trainyard_names | {_protocol.ENV_PER_RANK}, name)

    def test_init_reads_the_cpp_environment(self):
        if "run_variables" not in self.cpp:
            self.skipTest("built without the orchestration core: no LaunchSpec to compare with")
        with tempfile.TemporaryDirectory() as work:
            run_dir = os.path.join(work, "run")
            environment = cpp("--environment", run_dir)
            env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
            env.update(environment, PYTHONPATH=PYTHON_DIR)
            script = ("import json, trainyard; run = trainyard.init(name='other', run_dir='elsewhere'); "
                      "print(json.dumps([run.run_dir, run.name, run.resuming, run.device, run.seed])); run.finish()")
            out = subprocess.run([sys.executable, "-c", script], env=env, cwd=work, stdout=subprocess.PIPE,
                                 check=True, universal_newlines=True).stdout
        self.assertEqual(json.loads(out), [run_dir, "tables-run", True, "cuda:0", 7])

    def test_versions(self):
        with open(os.path.join(PYTHON_DIR, "pyproject.toml")) as f:
            declared = re.search(r'^version = "([^"]*)"', f.read(), re.M).group(1)
        self.assertEqual((trainyard.__version__, declared), (VERSION, VERSION))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[4:])  # e.g. -v
