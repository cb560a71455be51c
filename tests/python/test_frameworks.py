"""trainyard.lightning and trainyard.huggingface against stand-ins of their frameworks.

Neither PyTorch Lightning nor transformers is packaged in Debian 12: each
script here injects a stand-in of the classes the module subclasses
(lightning.pytorch.loggers.Logger and .callbacks.Callback, with Lightning's
abstract members; transformers.TrainerCallback) into sys.modules, and drives
them as the framework does (the order of Lightning's fit()/test() and its
finalize() calls, the Trainer's callback events and their arguments).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))

LIGHTNING = '''
import abc, signal, sys, types
from argparse import Namespace

class Logger(abc.ABC):  # lightning.pytorch.loggers.Logger's interface
    @property
    @abc.abstractmethod
    def name(self): ...
    @property
    @abc.abstractmethod
    def version(self): ...
    @property
    def root_dir(self): return None
    @property
    def log_dir(self): return None
    @property
    def save_dir(self): return None
    @property
    def group_separator(self): return "/"
    @abc.abstractmethod
    def log_metrics(self, metrics, step=None): ...
    @abc.abstractmethod
    def log_hyperparams(self, params, *args, **kwargs): ...
    def log_graph(self, model, input_array=None): pass
    def save(self): pass
    def finalize(self, status): self.save()
    def after_save_checkpoint(self, checkpoint_callback): pass

class Callback:
    def setup(self, trainer, pl_module, stage): pass
    def on_train_start(self, trainer, pl_module): pass
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx): pass

class ModelCheckpoint(Callback):
    def __init__(self, dirpath=None):
        self.dirpath = dirpath

PACKAGE = globals().get("PACKAGE", "lightning.pytorch")  # or the older "pytorch_lightning"
for name in (PACKAGE.split(".")[0], PACKAGE, PACKAGE + ".loggers", PACKAGE + ".callbacks"):
    sys.modules[name] = types.ModuleType(name)
sys.modules[PACKAGE + ".loggers"].Logger = Logger
sys.modules[PACKAGE + ".callbacks"].Callback = Callback
sys.modules[PACKAGE + ".callbacks"].ModelCheckpoint = ModelCheckpoint

class Trainer:
    """fit() and test() as lightning.pytorch.trainer.call runs them."""
    def __init__(self, logger, callbacks, batches):
        # Lightning adds a ModelCheckpoint when none is given, and sets up checkpoint callbacks last.
        self.checkpoint = ModelCheckpoint()
        self.loggers, self.callbacks, self.should_stop = [logger], callbacks + [self.checkpoint], False
        self.estimated_stepping_batches = batches
        self.global_step = 0

    def _call_and_handle_interrupt(self, stage):
        try:
            stage()
        except KeyboardInterrupt:
            for logger in self.loggers:
                logger.finalize("failed")
            sys.exit(1)
        except BaseException:
            for logger in self.loggers:
                logger.finalize("failed")
            raise
        for logger in self.loggers:  # _call_teardown_hook
            logger.finalize("success")

    def fit(self, losses, on_batch=lambda step: None):
        def stage():
            logger = self.loggers[0]
            logger.experiment  # _call_setup_hook
            for callback in self.callbacks:
                callback.setup(self, None, "fit")
            logger.log_hyperparams(Namespace(lr=0.1, model={"hidden": 8, "act": "relu"}))
            for callback in self.callbacks:
                callback.on_train_start(self, None)
            for step, loss in enumerate(losses):
                on_batch(step)
                self.global_step = step + 1
                for callback in self.callbacks:
                    callback.on_train_batch_end(self, None, {"loss": loss}, None, step)
                logger.log_metrics({"train_loss": loss, "lr": 0.1, "epoch": 0}, step=self.global_step)
                if self.should_stop:
                    break
            logger.log_metrics({"val_loss": 0.5, "val/acc": 0.75, "epoch": 0}, step=self.global_step)
        self._call_and_handle_interrupt(stage)

    def test(self):
        self._call_and_handle_interrupt(
            lambda: self.loggers[0].log_metrics({"test_acc": 0.7, "epoch": 0}, step=self.global_step))
'''

TRANSFORMERS = '''
import signal, sys, types

class TrainerCallback:  # transformers.TrainerCallback: every event a no-op
    def on_train_begin(self, args, state, control, **kwargs): pass
    def on_step_end(self, args, state, control, **kwargs): pass
    def on_log(self, args, state, control, logs=None, **kwargs): pass
    def on_train_end(self, args, state, control, **kwargs): pass

sys.modules["transformers"] = types.ModuleType("transformers")
sys.modules["transformers"].TrainerCallback = TrainerCallback

class Args:  # TrainingArguments
    def to_dict(self):
        return {"output_dir": "out", "learning_rate": 5e-05, "num_train_epochs": 2, "report_to": ["none"],
                "fp16": False}

class ModelConfig:
    def to_dict(self):
        return {"hidden_size": 8, "architectures": ["Net"], "learning_rate": 9.0}

class Model:
    config = ModelConfig()

class State:  # TrainerState
    global_step, max_steps = 0, 4

class Control:  # TrainerControl
    should_training_stop = False

def train(callback, losses, on_step=lambda step: None):
    """The Trainer's events, with the arguments its CallbackHandler passes."""
    args, state, control, model = Args(), State(), Control(), Model()
    events = dict(model=model, optimizer=None, lr_scheduler=None)
    callback.on_train_begin(args, state, control, **events)
    for step, loss in enumerate(losses):
        on_step(step)
        state.global_step = step + 1
        callback.on_step_end(args, state, control, **events)
        callback.on_log(args, state, control, logs={"loss": loss, "grad_norm": 1.5, "learning_rate": 5e-05,
                                                    "epoch": (step + 1) / 2}, **events)
        if control.should_training_stop:
            break
    callback.on_log(args, state, control, logs={"eval_loss": 0.4, "eval_accuracy": 0.8, "eval_runtime": 0.1,
                                                "epoch": state.global_step / 2}, **events)
    callback.on_log(args, state, control, logs={"train_runtime": 1.25, "train_loss": 0.9, "total_flos": 100.0,
                                                "epoch": state.global_step / 2}, **events)
    callback.on_train_end(args, state, control, **events)
    return state, control

def evaluate(callback, state):  # trainer.evaluate(metric_key_prefix="test") after train()
    callback.on_log(Args(), state, Control(), logs={"test_accuracy": 0.7, "epoch": 2.0}, model=Model())
'''


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


class FrameworksTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tyfw")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def scripts(self, **bodies):
        """Runs each (stand-in, body, inside) at once, each in a run folder of
        its own (inside Trainyard or not): {name: (exit status, lines, stdout, stderr, folder)}."""
        procs = {}
        for name, (stand_in, body, inside) in bodies.items():
            folder = os.path.join(self.tmp, name)
            os.mkdir(folder)
            env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
            env["PYTHONPATH"] = PYTHON_DIR
            if inside:
                with open(os.path.join(folder, "config.json"), "w") as f:
                    json.dump({"learning_rate": 0.001}, f)
                env.update(TRAINYARD_RUN_DIR=folder, TRAINYARD_RUN_NAME=name,
                           TRAINYARD_CONFIG=os.path.join(folder, "config.json"))
            script = os.path.join(self.tmp, name + ".py")
            with open(script, "w") as f:
                f.write(stand_in + "\nimport json, os\nFOLDER = %r\n" % folder + textwrap.dedent(body))
            procs[name] = (subprocess.Popen([sys.executable, script], env=env, cwd=self.tmp, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True), folder)
        result = {}
        for name, (proc, folder) in procs.items():
            out, err = proc.communicate(timeout=30)
            path = os.path.join(folder, "metrics.jsonl")
            lines = read_jsonl(path) if os.path.exists(path) else []
            result[name] = (proc.returncode, [m for m in lines if m["type"] != "heartbeat"], out, err, folder)
        return result

    def test_lightning_logger_and_callback(self):
        ran = self.scripts(
            fit_then_test=(LIGHTNING, """
                from trainyard.lightning import TrainyardCallback, TrainyardLogger
                logger = TrainyardLogger(tags=["lightning"])
                assert isinstance(logger, Logger) and isinstance(TrainyardCallback(), Callback)
                trainer = Trainer(logger, [TrainyardCallback()], batches=3)
                trainer.fit([2.0, 1.5, 1.0])
                assert not logger.experiment.finished  # finalize("success") leaves the run open
                assert trainer.checkpoint.dirpath == logger.experiment.checkpoint_dir, trainer.checkpoint.dirpath
                trainer.test()
                print(json.dumps([logger.name, logger.version, logger.log_dir, logger.save_dir]))
            """, False),
            failure=(LIGHTNING, """
                from trainyard.lightning import TrainyardLogger
                def crash(step):
                    if step == 1:
                        raise ValueError("bad batch")
                Trainer(TrainyardLogger(run_dir=FOLDER), [], batches=3).fit([2.0, 1.5, 1.0], crash)
            """, False),
            interrupted=(LIGHTNING, """
                from trainyard.lightning import TrainyardLogger
                def ctrl_c(step):
                    if step == 1:
                        raise KeyboardInterrupt
                Trainer(TrainyardLogger(run_dir=FOLDER), [], batches=3).fit([2.0, 1.5, 1.0], ctrl_c)
            """, False),
            stopped=(LIGHTNING, """
                from trainyard.lightning import TrainyardCallback, TrainyardLogger
                def stop(step):
                    if step == 1:
                        os.kill(os.getpid(), signal.SIGTERM)  # Trainyard's Stop, escalated
                trainer = Trainer(TrainyardLogger(), [TrainyardCallback(), ModelCheckpoint("mine")], batches=3)
                trainer.fit([2.0, 1.5, 1.0, 0.5], stop)
                assert trainer.should_stop
                assert trainer.callbacks[1].dirpath == "mine"  # the user's own is kept
                assert trainer.checkpoint.dirpath == os.path.join(FOLDER, "checkpoints")
            """, True),
            older_package=('PACKAGE = "pytorch_lightning"\n' + LIGHTNING, """
                sys.modules["lightning"] = None  # not installed
                from trainyard.lightning import TrainyardLogger
                print(sys.modules["trainyard.lightning"]._loggers.__name__)
            """, True))

        code, lines, out, err, folder = ran["fit_then_test"]
        self.assertEqual(code, 0, err)
        name, version, log_dir, save_dir = json.loads(out)
        self.assertEqual((name, version, os.path.dirname(log_dir), save_dir),
                         ("fit_then_test", os.path.basename(log_dir), os.path.join(self.tmp, "trainyard-runs"), None))
        lines = read_jsonl(os.path.join(log_dir, "metrics.jsonl"))  # outside Trainyard: a folder of its own
        with open(os.path.join(log_dir, "params.json")) as f:
            self.assertEqual(json.load(f), {"lr": 0.1, "model/hidden": 8, "model/act": "relu"})
        body = [strip(m) for m in lines if m["type"] in ("metric", "eval", "done")]
        self.assertEqual(body, [
            {"type": "metric", "step": 1, "epoch": 1, "total_steps": 3, "loss": 2.0, "lr": 0.1},
            {"type": "metric", "step": 2, "epoch": 1, "total_steps": 3, "loss": 1.5, "lr": 0.1},
            {"type": "metric", "step": 3, "epoch": 1, "total_steps": 3, "loss": 1.0, "lr": 0.1},
            {"type": "eval", "step": 3, "split": "valid", "epoch": 1, "loss": 0.5, "acc": 0.75},
            {"type": "eval", "step": 3, "split": "test", "epoch": 1, "acc": 0.7},
            {"type": "done", "status": "finished", "exit_code": 0}])

        code, lines, out, err, _ = ran["failure"]
        self.assertEqual(code, 1)
        self.assertIn("ValueError: bad batch", err)
        self.assertEqual([strip(m) for m in lines[-2:]], [
            {"type": "log", "level": "error", "text": "ValueError: bad batch"},
            {"type": "done", "status": "failed", "exit_code": 1}])

        code, lines, out, err, _ = ran["interrupted"]
        self.assertEqual(code, 1, err)  # Lightning's sys.exit(1)
        self.assertEqual([strip(m) for m in lines[-2:]], [
            {"type": "log", "level": "warning", "text": "interrupted (KeyboardInterrupt)"},
            {"type": "done", "status": "stopped", "exit_code": 4}])

        code, lines, out, err, folder = ran["stopped"]
        self.assertEqual(code, 0, err)
        self.assertEqual([m["step"] for m in lines if m["type"] == "metric"], [1, 2])  # stopped after step 2
        self.assertEqual(lines[-1]["status"], "stopped")
        with open(os.path.join(folder, "params.json")) as f:
            self.assertEqual(json.load(f)["learning_rate"], 0.001)  # Trainyard's config, kept

        code, lines, out, err, _ = ran["older_package"]
        self.assertEqual((code, out.strip()), (0, "pytorch_lightning.loggers"), err)

    def test_huggingface_callback(self):
        ran = self.scripts(
            train_then_evaluate=(TRANSFORMERS, """
                from trainyard.huggingface import TrainyardCallback
                callback = TrainyardCallback(config={"dataset": "imdb"})
                assert isinstance(callback, TrainerCallback)
                state, _ = train(callback, [2.0, 1.0, 0.5])
                assert not callback.run.finished  # the end of training leaves the run open
                evaluate(callback, state)
                print(json.dumps(dict(callback.run.summary)))
            """, True),
            stopped_in_a_started_run=(TRANSFORMERS, """
                import trainyard
                from trainyard.huggingface import TrainyardCallback
                run = trainyard.init(config={"seed": 3, "learning_rate": 1.0})
                def stop(step):
                    if step == 1:
                        os.kill(os.getpid(), signal.SIGTERM)  # Trainyard's Stop, escalated
                _, control = train(TrainyardCallback(), [2.0, 1.0, 0.5, 0.2], stop)
                assert control.should_training_stop
            """, True))

        code, lines, out, err, folder = ran["train_then_evaluate"]
        self.assertEqual(code, 0, err)
        body = [strip(m) for m in lines if m["type"] in ("metric", "eval", "done")]
        self.assertEqual(body, [
            {"type": "metric", "step": 1, "epoch": 1, "total_steps": 4, "loss": 2.0, "grad_norm": 1.5,
             "learning_rate": 5e-05},
            {"type": "metric", "step": 2, "epoch": 1, "total_steps": 4, "loss": 1.0, "grad_norm": 1.5,
             "learning_rate": 5e-05},
            {"type": "metric", "step": 3, "epoch": 2, "total_steps": 4, "loss": 0.5, "grad_norm": 1.5,
             "learning_rate": 5e-05},
            {"type": "eval", "step": 3, "split": "valid", "epoch": 1, "loss": 0.4, "accuracy": 0.8, "runtime": 0.1},
            {"type": "eval", "step": 3, "split": "test", "epoch": 2, "accuracy": 0.7},
            {"type": "done", "status": "finished", "exit_code": 0}])
        self.assertEqual(json.loads(out), {"train_runtime": 1.25, "train_loss": 0.9, "total_flos": 100.0})
        with open(os.path.join(folder, "params.json")) as f:
            params = json.load(f)
        # Trainyard's config wins, then the callback's, then the Trainer's and the model's scalars.
        self.assertEqual(params, {"hidden_size": 8, "learning_rate": 0.001, "output_dir": "out",
                                  "num_train_epochs": 2, "fp16": False, "dataset": "imdb"})

        code, lines, out, err, folder = ran["stopped_in_a_started_run"]
        self.assertEqual(code, 0, err)
        self.assertEqual([m["step"] for m in lines if m["type"] == "metric"], [1, 2])
        self.assertEqual(lines[-1]["status"], "stopped")
        with open(os.path.join(folder, "params.json")) as f:
            params = json.load(f)
        self.assertEqual((params["seed"], params["learning_rate"], params["hidden_size"]), (3, 0.001, 8))

    def test_evaluation_names(self):
        sys.path.insert(0, PYTHON_DIR)
        try:
            from trainyard._frameworks import split_of
        finally:
            sys.path.remove(PYTHON_DIR)
        names = ["val_loss", "val/acc", "validation_f1", "valid_mrr", "eval_loss", "test_acc", "test/hits@10",
                 "val_step", "val", "value", "train_loss", "testing"]
        self.assertEqual([split_of(name) for name in names], [
            ("valid", "loss"), ("valid", "acc"), ("valid", "f1"), ("valid", "mrr"), ("valid", "loss"),
            ("test", "acc"), ("test", "hits@10"), None, None, None, None, None])  # val_step: "step" is the line's

    def test_import_trainyard_imports_no_framework(self):
        script = textwrap.dedent("""
            import importlib, json, sys
            import trainyard
            loaded = sorted(m for m in sys.modules if m.split(".")[0] in
                            ("lightning", "pytorch_lightning", "transformers", "torch")
                            or m in ("trainyard.lightning", "trainyard.huggingface"))
            sys.modules.update(lightning=None, pytorch_lightning=None, transformers=None)  # not installed
            errors = []
            for name in ("trainyard.lightning", "trainyard.huggingface"):
                try:
                    importlib.import_module(name)
                except ImportError as error:
                    errors.append(str(error))
            print(json.dumps([loaded, errors]))
        """)
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout), [[], [
            "trainyard.lightning needs PyTorch Lightning: pip install lightning (or pytorch-lightning)",
            "trainyard.huggingface needs Hugging Face transformers: pip install transformers"]])


def strip(message):
    return {k: v for k, v in message.items() if k != "wall"}


if __name__ == "__main__":
    unittest.main()
