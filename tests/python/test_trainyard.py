"""Tests of python/trainyard: child scripts against a fake orchestrator.

Run from the repository root:
    PYTHONPATH=python python3 -m unittest discover -s tests/python -v
"""

import ast
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
TOKEN = "s3cr3t-token-4f9a2c"

# A training loop that runs until asked to stop (or 20 s), as a script body.
LOOP_UNTIL_STOP = """
run = trainyard.init()
step = 0
while not run.should_stop() and step < 4000:
    run.log(step, loss=0.5)
    step += 1
    time.sleep(0.005)
"""


class FakeOrchestrator:
    """A metrics server: accepts connections, records each line with the index
    of its connection, and sends controls or raw bytes to the newest one."""

    def __init__(self, path=None, tcp=False, read=True):
        self.path = path
        self.read = read
        self.lines = []  # (connection index, message)
        self.cond = threading.Condition()
        self.conns = []
        self.closed = False
        if tcp:
            self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.server.bind(("127.0.0.1", 0))
            self.address = "tcp:127.0.0.1:%d" % self.server.getsockname()[1]
        else:
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(path)
            self.address = "unix:" + path
        self.server.listen(8)
        self.server.settimeout(0.05)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.cond:
                index = len(self.conns)
                self.conns.append(conn)
                self.cond.notify_all()
            if self.read:
                threading.Thread(target=self._reader, args=(conn, index), daemon=True).start()

    def _reader(self, conn, index):
        buf = b""
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            buf += data
            *complete, buf = buf.split(b"\n")
            with self.cond:
                for line in complete:
                    self.lines.append((index, json.loads(line.decode("utf-8"))))
                self.cond.notify_all()

    def messages(self, kind=None, conn=None):
        with self.cond:
            return [m for i, m in self.lines if (kind is None or m["type"] == kind) and (conn is None or i == conn)]

    def wait_for(self, predicate, timeout=10.0, what="a condition"):
        with self.cond:
            if not self.cond.wait_for(lambda: predicate(self), timeout):
                raise AssertionError("timed out waiting for %s; got %r" % (what, [m for _, m in self.lines][-10:]))

    def send(self, data):
        with self.cond:
            conn = self.conns[-1]
        conn.sendall(data)

    def control(self, kind):
        self.send((json.dumps({"type": kind}) + "\n").encode())

    def close(self):
        self.closed = True
        self.server.close()
        with self.cond:
            conns = list(self.conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        self.thread.join(2)
        if self.path and os.path.exists(self.path):
            os.unlink(self.path)


def read_jsonl(path):
    with open(path, "rb") as f:
        return [json.loads(line) for line in f.read().decode("utf-8").splitlines()]


def types(messages, kind):
    return [m for m in messages if m["type"] == kind]


# How a script ends (after init() and one step): name -> (inside Trainyard, the script's last lines).
ENDINGS = {
    "exit_3": (True, "sys.exit(3)"),
    "exit_message": (True, """
        def main():
            sys.exit('boom')
        main()
    """),
    "exit_0": (True, "sys.exit(0)"),
    "exit_caught": (True, """
        try:
            sys.exit(2)
        except SystemExit:
            pass
    """),
    "exit_after_a_stop": (True, """
        import signal
        os.kill(os.getpid(), signal.SIGTERM)
        assert run.should_stop()
        sys.exit(1)
    """),
    "raised_boom": (True, "raise SystemExit('boom')"),
    "raised_0": (True, "raise SystemExit(0)"),
    "raised_outside": (False, "raise SystemExit('boom')"),
    "second_ctrl_c": (True, """
        import signal
        os.kill(os.getpid(), signal.SIGINT)   # the first: a stop request
        assert run.should_stop()
        os.kill(os.getpid(), signal.SIGINT)   # the second: KeyboardInterrupt
    """),
    "interrupted_with": (True, """
        with run:
            raise KeyboardInterrupt
    """),
}


class TrainyardTest(unittest.TestCase):
    _endings = None  # ENDINGS' results, run once

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ty")  # short: unix socket paths are limited
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.run_dir = os.path.join(self.tmp, "run")
        os.mkdir(self.run_dir)
        self.sock_path = os.path.join(self.tmp, "s")
        self.servers = []
        self.procs = []
        self.addCleanup(self._cleanup)

    def _cleanup(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
        for server in self.servers:
            server.close()

    def server(self, **kwargs):
        server = FakeOrchestrator(self.sock_path, **kwargs)
        self.servers.append(server)
        return server

    def env(self, connect=None, inside=True, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        env["PYTHONPATH"] = PYTHON_DIR
        env["PYTHONUNBUFFERED"] = "1"
        if inside:
            env.update(TRAINYARD_RUN_DIR=self.run_dir, TRAINYARD_RUN_NAME="mnist-demo",
                       TRAINYARD_TOKEN=TOKEN, TRAINYARD_SEED="7", TRAINYARD_DEVICE="cpu")
        if connect:
            env["TRAINYARD_CONNECT"] = connect
        env.update(extra)
        return env

    def start(self, body, env, name="train.py", cwd=None, args=()):
        script = os.path.join(self.tmp, name)
        with open(script, "w") as f:
            f.write("import json, os, sys, time\nimport trainyard\n" + textwrap.dedent(body))
        proc = subprocess.Popen([sys.executable, script, *args], env=env, cwd=cwd or self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def finish(self, proc, timeout=15):
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err

    def metrics(self):
        return read_jsonl(os.path.join(self.run_dir, "metrics.jsonl"))

    def assert_no_token(self, *texts):
        with open(os.path.join(self.run_dir, "metrics.jsonl"), "rb") as f:
            self.assertNotIn(TOKEN.encode(), f.read())
        for text in texts:
            self.assertNotIn(TOKEN, text)

    # -- tests -------------------------------------------------------------

    def test_hello_then_same_lines_on_socket_and_in_file(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            assert trainyard.init() is run
            for step in range(5):
                run.log(step, loss=1.0 / (step + 1), epoch=1 + step // 3, total_steps=5, lr=0.01,
                        samples_per_s=1000)
            run.eval("valid", 4, epoch=2, mrr=0.5, **{"hits@10": 0.9})
            run.text("hello from the script")
            run.checkpoint(4, os.path.join(run.checkpoint_dir, "step-4.pt"))
            print(json.dumps({"seed": run.seed, "device": run.device, "name": run.name,
                              "resuming": run.resuming, "resume_step": run.resume_step}))
            sys.exit(run.finish())
        """, self.env(server.address))
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out), {"seed": 7, "device": "cpu", "name": "mnist-demo",
                                           "resuming": False, "resume_step": None})
        server.wait_for(lambda s: s.messages("done"), what="done")
        socket_lines = server.messages()
        hello = socket_lines[0]
        self.assertEqual(hello["type"], "hello")
        self.assertEqual((hello["run"], hello["token"], hello["version"], hello["pid"], hello["device"]),
                         ("mnist-demo", TOKEN, 1, proc.pid, "cpu"))
        self.assertIsInstance(hello["wall"], float)
        self.assertEqual(len(types(socket_lines, "hello")), 1)
        file_lines = self.metrics()
        self.assertEqual(socket_lines[1:], file_lines)
        metrics = types(file_lines, "metric")
        self.assertEqual([m["step"] for m in metrics], [0, 1, 2, 3, 4])
        self.assertEqual([m["epoch"] for m in metrics], [1, 1, 1, 2, 2])
        self.assertEqual(metrics[0], {"type": "metric", "step": 0, "epoch": 1, "loss": 1.0, "total_steps": 5,
                                      "lr": 0.01, "samples_per_s": 1000, "wall": metrics[0]["wall"]})
        evals = types(file_lines, "eval")
        self.assertEqual(len(evals), 1)
        self.assertEqual((evals[0]["split"], evals[0]["step"], evals[0]["epoch"], evals[0]["mrr"],
                          evals[0]["hits@10"]), ("valid", 4, 2, 0.5, 0.9))
        self.assertIn("hello from the script", [m["text"] for m in types(file_lines, "log")])
        checkpoint = types(file_lines, "checkpoint")[0]
        self.assertEqual(checkpoint["step"], 4)
        self.assertEqual(checkpoint["path"], os.path.join(self.run_dir, "checkpoints", "step-4.pt"))
        self.assertEqual(file_lines[-1], {"type": "done", "status": "finished", "exit_code": 0,
                                          "wall": file_lines[-1]["wall"]})
        walls = [m["wall"] for m in file_lines]
        self.assertEqual(walls, sorted(walls))
        self.assertTrue(all(isinstance(m["wall"], float) for m in file_lines))
        self.assertTrue(os.path.isdir(os.path.join(self.run_dir, "checkpoints")))
        self.assert_no_token(out, err)

    def test_tcp_connection(self):
        server = FakeOrchestrator(tcp=True)
        self.servers.append(server)
        proc = self.start("""
            run = trainyard.init()
            run.log(0, loss=2.5)
        """, self.env(server.address))
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        server.wait_for(lambda s: s.messages("done"), what="done")
        self.assertEqual(server.messages()[0]["type"], "hello")
        self.assertEqual(server.messages("metric")[0]["loss"], 2.5)

    def test_stop_control_and_checkpoint_now(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            step, deadline = 0, time.monotonic() + 20
            while not run.should_stop() and time.monotonic() < deadline:
                if run.checkpoint_requested():
                    path = os.path.join(run.checkpoint_dir, "now.pt")
                    open(path, "w").close()
                    run.checkpoint(step, path)
                    assert not run.checkpoint_requested()
                run.log(step, loss=1.0)
                step += 1
                time.sleep(0.005)
            print("stopped" if run.should_stop() else "timeout")
            sys.exit(run.finish())
        """, self.env(server.address))
        server.wait_for(lambda s: s.messages("metric"), what="a metric line")
        server.control("checkpoint-now")
        server.wait_for(lambda s: s.messages("checkpoint"), what="a checkpoint line")
        server.control("stop")
        code, out, err = self.finish(proc)
        self.assertEqual((code, out.strip()), (4, "stopped"), err)
        server.wait_for(lambda s: s.messages("done"), what="done")
        self.assertEqual(server.messages("done")[0]["status"], "stopped")
        file_lines = self.metrics()
        self.assertEqual((file_lines[-1]["status"], file_lines[-1]["exit_code"]), ("stopped", 4))
        self.assertEqual(len(types(file_lines, "checkpoint")), 1)

    def test_stop_then_return_writes_done_stopped_at_exit(self):
        server = self.server()
        proc = self.start(LOOP_UNTIL_STOP, self.env(server.address))
        server.wait_for(lambda s: s.messages("metric"), what="a metric line")
        server.control("stop")
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        done = self.metrics()[-1]
        self.assertEqual((done["type"], done["status"], done["exit_code"]), ("done", "stopped", 4))
        server.wait_for(lambda s: s.messages("done"), what="done on the socket")

    def test_sigterm_requests_a_stop(self):
        proc = self.start(LOOP_UNTIL_STOP + "print(step)\n", self.env())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(m["type"] == "metric" for m in self._safe_metrics()):
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        self.assertLess(int(out), 4000)
        self.assertEqual(self.metrics()[-1]["status"], "stopped")

    def _safe_metrics(self):
        try:
            return self.metrics()
        except (OSError, ValueError):
            return []

    def test_pause_and_resume(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            step, seen, deadline = 0, [], time.monotonic() + 20
            while time.monotonic() < deadline:
                if run.paused() and "paused" not in seen:
                    seen.append("paused")
                if run.wait_while_paused(poll=0.02):
                    break
                if "paused" in seen and "resumed" not in seen:
                    seen.append("resumed")
                run.log(step, loss=1.0)
                step += 1
                time.sleep(0.005)
            print(json.dumps(seen))
        """, self.env(server.address))
        server.wait_for(lambda s: len(s.messages("metric")) >= 3, what="metric lines")
        server.control("pause")
        server.wait_for(lambda s: any(m["text"].startswith("paused at step") for m in s.messages("log")),
                        what="paused log line")
        paused_line = [m for m in server.messages("log") if m["text"].startswith("paused at step")][0]
        last_metric = server.messages("metric")[-1]
        self.assertEqual(paused_line["text"], "paused at step %d" % last_metric["step"])
        # Heartbeats go on while paused; training does not.
        server.wait_for(lambda s: s.messages()[-1]["type"] == "heartbeat" and
                        s.messages()[-1]["wall"] > paused_line["wall"], timeout=3, what="heartbeat while paused")
        self.assertEqual(server.messages("metric")[-1], last_metric)
        server.control("resume")
        server.wait_for(lambda s: any(m["text"].startswith("resumed at step") for m in s.messages("log")),
                        what="resumed log line")
        server.wait_for(lambda s: s.messages("metric")[-1]["step"] > last_metric["step"], what="training again")
        server.control("pause")
        server.wait_for(lambda s: len([m for m in s.messages("log") if m["text"].startswith("paused")]) == 2,
                        what="second pause")
        server.control("stop")  # a stop while paused stops
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out), ["paused", "resumed"])
        texts = [m["text"] for m in types(self.metrics(), "log")]
        self.assertEqual(len([t for t in texts if t.startswith("resumed at")]), 1)
        self.assertEqual(self.metrics()[-1]["status"], "stopped")

    def test_without_connect_the_file_only(self):
        proc = self.start("""
            run = trainyard.init()
            for step in range(3):
                run.log(step, loss=0.1)
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual((code, out, err), (0, "", ""))
        file_lines = self.metrics()
        self.assertEqual(len(types(file_lines, "metric")), 3)
        self.assertEqual(types(file_lines, "hello"), [])
        self.assertEqual(file_lines[-1]["status"], "finished")
        self.assert_no_token()
        # Inside Trainyard the app writes status.json, never the module.
        self.assertFalse(os.path.exists(os.path.join(self.run_dir, "status.json")))

    def test_outside_trainyard_writes_a_folder_of_its_own(self):
        work = os.path.join(self.tmp, "work")
        os.mkdir(work)
        proc = self.start("""
            run = trainyard.init()
            assert trainyard.init() is run
            run.log(0, loss=3.0)
            print(run.run_dir)
            print(run.name)
            print(run.seed, run.device, run.resuming)
        """, self.env(inside=False), name="my_script.py", cwd=work)
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        run_dir, name, rest = out.splitlines()
        self.assertEqual((name, rest), ("my_script", "None cpu False"))
        self.assertEqual(os.path.dirname(run_dir), os.path.join(os.path.realpath(work), "trainyard-runs"))
        self.assertRegex(os.path.basename(run_dir), r"^my_script-\d{8}-\d{6}$")
        self.assertEqual(len(err.splitlines()), 1)
        self.assertIn(os.path.join(run_dir, "metrics.jsonl"), err)
        lines = read_jsonl(os.path.join(run_dir, "metrics.jsonl"))
        self.assertEqual(types(lines, "metric")[0]["loss"], 3.0)
        self.assertEqual(lines[-1]["status"], "finished")
        self.assertTrue(os.path.isdir(os.path.join(run_dir, "checkpoints")))
        # A run folder like Trainyard's: status.json as RunStore writes it.
        with open(os.path.join(run_dir, "status.json")) as f:
            status = json.load(f)
        self.assertEqual((status["state"], status["exit_code"], status["step"], status["device"], status["pid"]),
                         ("finished", 0, 0, "cpu", proc.pid))
        self.assertEqual(status["command"][1:], [os.path.join(self.tmp, "my_script.py")])
        self.assertRegex(status["started"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertLessEqual(status["started"], status["ended"])
        # With a name, the folder takes the name; a second run in the same second gets its own.
        body = """
            run = trainyard.init(name="exp 1")
            print(run.run_dir)
        """
        first = self.finish(self.start(body, self.env(inside=False), cwd=work))[1].strip()
        second = self.finish(self.start(body, self.env(inside=False), cwd=work))[1].strip()
        self.assertRegex(os.path.basename(first), r"^exp_1-\d{8}-\d{6}")
        self.assertNotEqual(first, second)

    def test_late_server_then_restart_reconnects_with_hello(self):
        proc = self.start("""
            run = trainyard.init()
            step, deadline = 0, time.monotonic() + 25
            while not run.should_stop() and time.monotonic() < deadline:
                run.log(step, loss=1.0)
                step += 1
                time.sleep(0.01)
        """, self.env("unix:" + self.sock_path))
        time.sleep(0.4)  # the child retries with backoff meanwhile
        server = self.server()
        server.wait_for(lambda s: s.messages("metric"), what="metric lines on a late server")
        self.assertEqual(server.messages()[0]["type"], "hello")
        server.close()
        self.servers.remove(server)
        time.sleep(0.2)
        server = self.server()
        server.wait_for(lambda s: len(s.messages("metric")) >= 2, what="metric lines after the restart")
        self.assertEqual(server.messages()[0]["type"], "hello")
        self.assertEqual(server.messages()[0]["token"], TOKEN)
        server.control("stop")
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        server.wait_for(lambda s: s.messages("done"), what="done")
        # The file has every step, whatever the socket lost.
        steps = [m["step"] for m in types(self.metrics(), "metric")]
        self.assertEqual(steps, list(range(len(steps))))

    def test_garbage_from_the_server_is_ignored(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            step, deadline = 0, time.monotonic() + 20
            while not run.should_stop() and time.monotonic() < deadline:
                assert not run.paused()
                run.log(step, loss=1.0)
                step += 1
                time.sleep(0.005)
        """, self.env(server.address))
        server.wait_for(lambda s: s.messages("metric"), what="a metric line")
        huge_stop = b'{"type":"stop","pad":"' + b"x" * (70 * 1024) + b'"}\n'
        garbage = [b"not json\n", b"\xff\xfe\xfd\n", b"[1,2,3]\n", b'"stop"\n', b'{"type":"unknown"}\n',
                   b'{"type":5}\n', b"{\"type\":\"stop\"\x00}\n", b"[" * 20000 + b"]" * 20000 + b"\n",
                   huge_stop, b"\n\n", b'{"type": "pause"  ' + b" " * (65 * 1024) + b"}\n"]
        for chunk in garbage:
            server.send(chunk)
        server.send(b'{"type":"stop"')  # half a line: nothing until it ends
        count = len(server.messages("metric"))
        server.wait_for(lambda s: len(s.messages("metric")) >= count + 10, what="training to go on")
        self.assertIsNone(proc.poll())
        self.assertEqual(server.messages("done"), [])
        server.send(b"}\n")
        code, out, err = self.finish(proc)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(self.metrics()[-1]["status"], "stopped")

    def test_uncaught_exception_fails_the_run(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            run.log(0, loss=1.0)
            raise ValueError("boom at step 0")
        """, self.env(server.address))
        code, out, err = self.finish(proc)
        self.assertEqual(code, 1)
        self.assertIn("Traceback (most recent call last)", err)
        self.assertIn("ValueError: boom at step 0", err)
        file_lines = self.metrics()
        self.assertEqual(file_lines[-2], {"type": "log", "level": "error", "text": "ValueError: boom at step 0",
                                          "wall": file_lines[-2]["wall"]})
        self.assertEqual((file_lines[-1]["status"], file_lines[-1]["exit_code"]), ("failed", 1))
        server.wait_for(lambda s: s.messages("done"), what="done")
        self.assert_no_token(out, err)

    def ended(self, name):
        """(exit status, last two lines, stderr) of ENDINGS[name]: the first
        call runs every script of ENDINGS at once, each after init() and a
        logged step in a run folder of its own, inside Trainyard or not."""
        if TrainyardTest._endings is None:
            procs = {}
            for key, (inside, body) in ENDINGS.items():
                folder = os.path.join(self.tmp, key)
                os.mkdir(folder)
                env = self.env(inside=False, TRAINYARD_RUN_DIR=folder) if inside else self.env(inside=False)
                script = "run = trainyard.init(run_dir=%r)\nrun.log(0, loss=1.0)\n" % folder + textwrap.dedent(body)
                procs[key] = (self.start(script, env, name=key + ".py"), folder)
            endings = {}
            for key, (proc, folder) in procs.items():
                code, out, err = self.finish(proc)
                endings[key] = (code, read_jsonl(os.path.join(folder, "metrics.jsonl"))[-2:], err)
            TrainyardTest._endings = endings
        return TrainyardTest._endings[name]

    def test_sys_exit_with_a_failure_status_fails_the_run(self):
        expected = {
            "exit_3": (3, "failed", "SystemExit: 3"),
            "exit_message": (1, "failed", "SystemExit: boom"),
            "exit_0": (0, "finished", None),
            "exit_caught": (0, "finished", None),
            "exit_after_a_stop": (1, "stopped", None),  # as Run.__exit__ takes it
        }
        for name, want in expected.items():
            code, lines, err = self.ended(name)
            self.assertEqual((code, lines[-1].get("status"), lines[-2].get("text")), want, (name, err))

    def test_a_raised_system_exit_leaves_the_outcome_to_the_exit_status(self):
        # Python hands a raised SystemExit to no hook: inside Trainyard the
        # module writes no done line, and the app judges by the exit status.
        for name, status in (("raised_boom", 1), ("raised_0", 0)):
            code, lines, err = self.ended(name)
            self.assertEqual((code, [m["type"] for m in lines]), (status, ["metric", "log"]), (name, err))
            self.assertIn("its exit status tells how the run ended", lines[-1]["text"])
        # Outside Trainyard nobody reads the exit status: the evidence decides.
        self.assertEqual(self.ended("raised_outside")[1][-1]["status"], "finished")

    def test_keyboard_interrupt_is_a_stop(self):
        for name in ("second_ctrl_c", "interrupted_with"):
            code, lines, err = self.ended(name)
            self.assertEqual((lines[-2].get("text"), lines[-1]["status"], lines[-1]["exit_code"]),
                             ("interrupted (KeyboardInterrupt)", "stopped", 4), (name, err))
            self.assertNotEqual(code, 0, name)

    def test_context_manager_fails_on_exception(self):
        proc = self.start("""
            try:
                with trainyard.init() as run:
                    run.log(0, loss=1.0)
                    1 / 0
            except ZeroDivisionError:
                print(run.finished, run.exit_code)
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual((code, out.strip()), (0, "True 1"), err)
        self.assertEqual(self.metrics()[-1]["status"], "failed")

    def test_resume_continues_from_the_last_checkpoint_line(self):
        old = [
            {"type": "metric", "step": 10, "epoch": 1, "loss": 1.0, "wall": 40.0},
            {"type": "checkpoint", "step": 10, "path": "/x/10.pt", "wall": 50.0},
            {"type": "metric", "step": 20, "epoch": 2, "loss": 0.5, "wall": 80.0},
            {"type": "checkpoint", "step": 20, "path": "/x/20.pt", "wall": 90.0},
            {"type": "metric", "step": 25, "epoch": 2, "loss": 0.4, "wall": 100.0},
            {"type": "done", "status": "stopped", "exit_code": 4, "wall": 100.5},
        ]
        path = os.path.join(self.run_dir, "metrics.jsonl")
        with open(path, "w") as f:
            f.write("".join(json.dumps(m) + "\n" for m in old) + '{"type":"metric","st')  # a torn last line
        body = """
            run = trainyard.init()
            print(json.dumps([run.resuming, run.resume_step, run.resume_path]))
            run.log(21, loss=0.45, epoch=2)
        """
        code, out, err = self.finish(self.start(body, self.env(TRAINYARD_RESUME="1")))
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out), [True, 20, "/x/20.pt"])
        with open(path) as f:
            new = [json.loads(line) for line in f.read().splitlines()[len(old) + 1:]]
        self.assertEqual(new[0]["type"], "log")
        self.assertIn("resumed from step 20", [m.get("text") for m in new])
        self.assertTrue(all(m["wall"] >= 100.5 for m in new), new)
        self.assertEqual(types(new, "metric")[0]["step"], 21)
        # Not resuming: no resume step, the clock starts at zero.
        code, out, err = self.finish(self.start(body, self.env(TRAINYARD_RESUME="0")))
        self.assertEqual(json.loads(out), [False, None, None])
        with open(path) as f:
            last = json.loads(f.read().splitlines()[-1])
        self.assertLess(last["wall"], 50)

    def test_heartbeats_every_second(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            run.log(3, loss=1.0)
            time.sleep(2.4)
        """, self.env(server.address))
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        beats = types(self.metrics(), "heartbeat")
        self.assertEqual(len(beats), 2, beats)
        self.assertEqual([b["step"] for b in beats], [3, 3])
        self.assertGreater(beats[0]["wall"], 0.8)
        self.assertTrue(0.8 < beats[1]["wall"] - beats[0]["wall"] < 1.5, beats)
        server.wait_for(lambda s: len(s.messages("heartbeat")) == 2, what="heartbeats on the socket")

    def test_bad_values_are_refused(self):
        proc = self.start("""
            run = trainyard.init()
            errors = []
            def attempt(call, *args, **kwargs):
                try:
                    call(*args, **kwargs)
                    errors.append(None)
                except (TypeError, ValueError) as error:
                    errors.append([type(error).__name__, str(error)])
            attempt(run.log, 0, loss=1.0, accuracy="high")
            attempt(run.log, 0, loss=1.0, flag=True)
            attempt(run.log, 0, loss="1.0")
            attempt(run.log, 0, loss=None)
            attempt(run.log, 1.5, loss=1.0)
            attempt(run.log, -1, loss=1.0)
            attempt(run.log, 0, loss=1.0, wall=3.0)
            attempt(run.eval, "valid", 0, mrr="x")
            attempt(run.text, "x", level="debug")
            attempt(run.log, 1, loss=float("nan"))
            attempt(run.log, 2, loss=1.0, lr=float("inf"))
            print(json.dumps(errors))
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        errors = json.loads(out)
        self.assertEqual(errors[0][0], "TypeError")
        self.assertIn("accuracy", errors[0][1])
        self.assertEqual(errors[1][0], "TypeError")
        self.assertIn("flag", errors[1][1])
        self.assertEqual([e[0] for e in errors[2:9]],
                         ["TypeError", "TypeError", "ValueError", "ValueError", "ValueError", "TypeError",
                          "ValueError"])
        self.assertIn("step must be a whole number, got 1.5", errors[4][1])
        self.assertIn("mrr", errors[7][1])
        self.assertEqual(errors[9:], [None, None])
        file_lines = self.metrics()
        # Not finite: written as null (JSON has no NaN), not left out.
        self.assertEqual([(m["step"], m["loss"], m.get("lr", "absent")) for m in types(file_lines, "metric")],
                         [(1, None, "absent"), (2, 1.0, None)])
        texts = [m["text"] for m in types(file_lines, "log") if m["level"] == "warning"]
        self.assertTrue(any(t.startswith("loss is nan at step 1") for t in texts), texts)
        self.assertTrue(any(t.startswith("lr is inf at step 2") for t in texts), texts)

    def test_log_takes_the_forms_users_know(self):
        # No loss (acc alone), W&B's dict with step=, the step left
        # out (one more than the last), a whole float step, the loss as a
        # second argument; values with .item() or __float__ (a tensor, a
        # NumPy scalar) without torch or NumPy.
        proc = self.start("""
            import decimal, fractions
            class Tensor:  # torch.tensor(0.2): .item() gives a float
                def __init__(self, *values): self.values = values
                def item(self):
                    if len(self.values) != 1:
                        raise RuntimeError("a Tensor with %d elements cannot be converted to Scalar" % len(self.values))
                    return self.values[0]
            class Float32:  # numpy.float32: __float__, not a float
                def __float__(self): return 0.75
            run = trainyard.init()
            run.log(11, acc=0.9)
            run.log({"loss": 0.3, "acc": 0.91}, step=18)
            run.log({"loss": 0.28, "epoch": 2, "total_steps": 100})
            run.log(loss=Tensor(0.2), grad=Float32())
            run.log(step=None, loss=0.1, n=Tensor(7))
            run.log(30.0, Tensor(0.05), frac=fractions.Fraction(1, 8), dec=decimal.Decimal("0.5"))
            errors = []
            for call in (lambda: run.log(31.5, loss=1.0), lambda: run.log(32, loss=Tensor(1.0, 2.0)),
                         lambda: run.log(32, loss=Tensor(True)), lambda: run.log({"loss": 1.0}, 32),
                         lambda: run.log(32, step=33, loss=1.0), lambda: run.log({"acc": 1.0}, acc=2.0),
                         lambda: run.log({5: 1.0}), lambda: run.log(32, loss=1.0, epoch=1.5)):
                try:
                    call()
                    errors.append(None)
                except (TypeError, ValueError) as error:
                    errors.append("%s: %s" % (type(error).__name__, error))
            print(json.dumps(errors))
            print("torch" in sys.modules, "numpy" in sys.modules)
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        errors_line, imported = out.splitlines()
        self.assertEqual(imported, "False False")
        errors = json.loads(errors_line)
        self.assertEqual(errors[0], "ValueError: trainyard: step must be a whole number, got 31.5")
        self.assertTrue(errors[1].startswith("TypeError: trainyard: loss must be a number or hold exactly one, "
                                             "got Tensor (a Tensor with 2 elements"), errors[1])
        self.assertEqual(errors[2], "TypeError: trainyard: loss must be a number, got Tensor holding bool")
        self.assertIn("step=", errors[3])
        self.assertIn("step given twice", errors[4])
        self.assertIn("'acc' given twice", errors[5])
        self.assertIn("a metric name must be a string", errors[6])
        self.assertEqual(errors[7], "ValueError: trainyard: epoch must be a whole number, got 1.5")
        strip = [{k: v for k, v in m.items() if k not in ("type", "wall")} for m in types(self.metrics(), "metric")]
        self.assertEqual(strip, [
            {"step": 11, "epoch": 1, "acc": 0.9},
            {"step": 18, "epoch": 1, "loss": 0.3, "acc": 0.91},
            {"step": 19, "epoch": 2, "total_steps": 100, "loss": 0.28},
            {"step": 20, "epoch": 2, "loss": 0.2, "grad": 0.75},
            {"step": 21, "epoch": 2, "loss": 0.1, "n": 7},
            {"step": 30, "epoch": 2, "loss": 0.05, "frac": 0.125, "dec": 0.5},
        ])
        self.assertEqual(self.metrics()[-1]["status"], "finished")

    def test_log_lines_hold_every_value_exactly(self):
        # log() writes its line as text, not through json.dumps: every float
        # reads back as the same float, names are escaped as JSON escapes them.
        proc = self.start("""
            import random
            run = trainyard.init()
            rng = random.Random(7)
            values = [0.1, 1 / 3, -0.0, 5e-324, 1e300, -1e-7, 2.5e16, 123456789.123, 10 ** 30, -5]
            values += [rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-30, 30) for _ in range(500)]
            for step, value in enumerate(values):
                run.log(step, loss=value, **{"grad \\"norm\\"": value, "ü": step})
            print(json.dumps([repr(v) for v in values]))
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        values = [ast.literal_eval(v) for v in json.loads(out)]
        lines = types(self.metrics(), "metric")
        self.assertEqual(len(lines), len(values))
        for step, (line, value) in enumerate(zip(lines, values)):
            self.assertEqual((line["loss"], line['grad "norm"'], line["ü"]), (value, value, step))
            self.assertEqual(type(line["loss"]), type(value))
            self.assertEqual(repr(line["loss"]), repr(value))  # -0.0 too

    def test_a_burst_of_log_calls_takes_few_sends(self):
        # The socket thread sends what accumulated, not a line at a time: a
        # burst of 20 000 calls makes far fewer send()s than lines.
        server = self.server()
        proc = self.start("""
            import socket
            sends = [0]
            send = socket.socket.send
            def counting(self, *args):
                sends[0] += 1
                return send(self, *args)
            socket.socket.send = counting
            run = trainyard.init()
            deadline = time.monotonic() + 10
            while not run._link.connected and time.monotonic() < deadline:
                time.sleep(0.01)
            before = sends[0]
            for step in range(20000):
                run.log(step, loss=0.5, lr=0.001)
            run.finish()
            print(sends[0] - before)
        """, self.env(server.address))
        code, out, err = self.finish(proc, timeout=60)
        self.assertEqual(code, 0, err)
        server.wait_for(lambda s: s.messages("done"), what="done")
        from trainyard import MAX_QUEUED_LINES
        # When the socket thread falls behind (a loaded machine) the queue
        # keeps the newest MAX_QUEUED_LINES: the live view may skip lines, the
        # run's metrics.jsonl keeps every one.
        sent = [m["step"] for m in server.messages("metric")]
        self.assertGreaterEqual(len(sent), MAX_QUEUED_LINES)
        self.assertEqual(sent, sorted(sent))
        self.assertEqual(sent[-1], 19999)
        self.assertEqual(len(types(self.metrics(), "metric")), 20000)
        self.assertLess(int(out), 1000)

    def test_a_run_without_a_loss_finishes_and_a_resumed_one_counts_on(self):
        # No loss at all is no divergence; a resumed run's step left out
        # follows its checkpoint's.
        proc = self.start("""
            run = trainyard.init()
            for _ in range(3):
                run.log(acc=0.5)
            run.checkpoint(1, "ckpt")
        """, self.env())
        code, _, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        self.assertEqual([m["step"] for m in types(self.metrics(), "metric")], [0, 1, 2])
        self.assertEqual(self.metrics()[-1]["status"], "finished")
        proc = self.start("""
            run = trainyard.init()
            run.log(acc=0.6)
        """, self.env(TRAINYARD_RESUME="1"))
        code, _, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        self.assertEqual([m["step"] for m in types(self.metrics(), "metric")], [0, 1, 2, 2])

    def test_summary_is_a_dict_reported_in_summary_lines(self):
        server = self.server()
        proc = self.start("""
            run = trainyard.init()
            run.summary["best_acc"] = 0.9
            run.summary["best_acc"] = 0.93
            run.summary.update({"final_loss": float("nan")}, epochs=12)
            run.summary.update({"v%d" % i: i for i in range(20)})
            errors = []
            for call in (lambda: run.summary.__setitem__("step", 1), lambda: run.summary.__setitem__("x", "high"),
                         lambda: run.summary.__delitem__("best_acc"), lambda: run.summary.update(a=1, b=True)):
                try:
                    call()
                    errors.append(None)
                except (TypeError, ValueError) as error:
                    errors.append(type(error).__name__)
            print(json.dumps([run.summary["best_acc"], len(run.summary), "a" in run.summary, errors]))
            run.finish()
            try:
                run.summary["late"] = 1
            except RuntimeError:
                print("finished")
        """, self.env(server.address))
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        first, last = out.splitlines()
        self.assertEqual(json.loads(first), [0.93, 23, False, ["ValueError", "TypeError", "TypeError", "TypeError"]])
        self.assertEqual(last, "finished")
        lines = types(self.metrics(), "summary")
        stripped = [{k: v for k, v in m.items() if k not in ("type", "wall")} for m in lines]
        self.assertEqual(stripped[:3], [{"best_acc": 0.9}, {"best_acc": 0.93}, {"final_loss": None, "epochs": 12}])
        # 20 values: two lines, none over the 16 a reader's record holds.
        self.assertEqual([len(s) for s in stripped[3:]], [16, 4])
        warnings = [m["text"] for m in types(self.metrics(), "log") if m["level"] == "warning"]
        self.assertEqual(len(warnings), 0, warnings)
        server.wait_for(lambda s: s.messages("done"), what="done")
        self.assertEqual(server.messages("summary"), lines)

    def test_a_chained_exception_is_reported_whole(self):
        for body, sentence in (('raise RuntimeError("loading failed") from KeyError("lr")',
                                "The above exception was the direct cause of the following exception:"),
                               ('try:\n    {}["lr"]\nexcept KeyError:\n    raise RuntimeError("loading failed")',
                                "During handling of the above exception, another exception occurred:")):
            proc = self.start("run = trainyard.init()\n" + body + "\n", self.env())
            code, _, err = self.finish(proc)
            self.assertEqual(code, 1)
            self.assertIn(sentence, err)  # Python's own print, into worker.log
            error = [m["text"] for m in types(self.metrics(), "log") if m["level"] == "error"][-1]
            self.assertEqual(error, "KeyError: 'lr'\n\n%s\n\nRuntimeError: loading failed" % sentence)
            os.unlink(os.path.join(self.run_dir, "metrics.jsonl"))

    def test_a_nan_loss_is_null_with_the_finite_extras_and_diverges_if_it_stays(self):
        # Loss NaN from step 5 of 10: each line kept, its grad_norm too; one
        # warning; done "diverged" when it lasts to the end.
        for recovers in (False, True):
            proc = self.start("""
                run = trainyard.init()
                recovers = %r
                for step in range(1, 11):
                    bad = step >= 5 and not (recovers and step == 10)
                    run.log(step, loss=float("nan") if bad else 1.0 / step, grad_norm=0.5)
            """ % recovers, self.env())
            code, _, err = self.finish(proc)
            self.assertEqual(code, 0, err)
            lines = self.metrics()
            metric = types(lines, "metric")
            self.assertEqual([m["step"] for m in metric], list(range(1, 11)))
            self.assertEqual([m["loss"] is None for m in metric[4:9]], [True] * 5)
            self.assertEqual({m["grad_norm"] for m in metric}, {0.5})
            warnings = [m["text"] for m in types(lines, "log") if m["level"] == "warning"]
            self.assertEqual(len(warnings), 1, warnings)
            self.assertIn("written as null", warnings[0])
            self.assertEqual(lines[-1]["type"], "done")
            self.assertEqual((lines[-1]["status"], lines[-1]["exit_code"]),
                             ("finished", 0) if recovers else ("diverged", 3))
            os.unlink(os.path.join(self.run_dir, "metrics.jsonl"))

    # A two-rank job: each rank a process of its own that calls init(), as
    # mp.spawn or torchrun starts them, with RANK set.
    RANKS = """
        import multiprocessing
        def rank_main(rank, per_rank):
            os.environ["RANK"] = str(rank)
            os.environ["WORLD_SIZE"] = "2"
            run = trainyard.init(per_rank=per_rank or None)
            step = 0
            while not run.should_stop() and step < 4000:
                step += 1
                run.log(step, loss=1.0 / step, rank_seen=float(run.rank))
                time.sleep(0.005)
            print("rank %d stopped=%s reporting=%s" % (run.rank, run.should_stop(), run.reporting), flush=True)
        if __name__ == "__main__":
            per_rank = len(sys.argv) > 1
            procs = [multiprocessing.get_context("spawn").Process(target=rank_main, args=(r, per_rank))
                     for r in (0, 1)]
            for p in procs:
                p.start()
            for p in procs:
                p.join(30)
            print("exits", [p.exitcode for p in procs], flush=True)
    """

    def test_only_rank_0_reports_and_every_rank_obeys_stop(self):
        # One curve, one done line, one connection; rank 1 stops when rank 0 is asked to.
        server = self.server()
        proc = self.start(self.RANKS, self.env(server.address))
        server.wait_for(lambda s: len(s.messages("metric")) >= 20, what="metric lines")
        time.sleep(0.3)  # rank 1 is well into its loop too
        server.control("stop")
        code, out, err = self.finish(proc, timeout=30)
        self.assertEqual(code, 0, err)
        self.assertIn("rank 0 stopped=True reporting=True", out)
        self.assertIn("rank 1 stopped=True reporting=False", out)
        self.assertIn("exits [0, 0]", out)
        lines = self.metrics()
        self.assertEqual([m["status"] for m in types(lines, "done")], ["stopped"])
        self.assertEqual({m["rank_seen"] for m in types(lines, "metric")}, {0.0})
        steps = [m["step"] for m in types(lines, "metric")]
        self.assertEqual(steps, sorted(set(steps)))  # one curve, no step twice
        self.assertEqual(len(server.messages("hello")), 1)
        self.assertFalse(os.path.exists(os.path.join(self.run_dir, "metrics.rank1.jsonl")))
        self.assertIn("rank 0 (RANK)", types(lines, "log")[0]["text"])

    def test_per_rank_mode_keeps_the_ranks_apart(self):
        # Rank 1 into metrics.rank1.jsonl, done line and all; metrics.jsonl is rank 0's alone.
        server = self.server()
        proc = self.start(self.RANKS, self.env(server.address), args=("per-rank",))
        server.wait_for(lambda s: len(s.messages("metric")) >= 20, what="metric lines")
        rank1 = os.path.join(self.run_dir, "metrics.rank1.jsonl")
        deadline = time.monotonic() + 10
        while not any(m["type"] == "metric" for m in (read_jsonl(rank1) if os.path.exists(rank1) else [])):
            self.assertLess(time.monotonic(), deadline, "rank 1 wrote no metric line")
            time.sleep(0.05)
        server.control("stop")
        code, out, err = self.finish(proc, timeout=30)
        self.assertEqual(code, 0, err)
        self.assertIn("rank 1 stopped=True reporting=True", out)
        lines = self.metrics()
        self.assertEqual({m["rank_seen"] for m in types(lines, "metric")}, {0.0})
        self.assertEqual([m["status"] for m in types(lines, "done")], ["stopped"])
        other = read_jsonl(rank1)
        self.assertEqual({m["rank_seen"] for m in types(other, "metric")}, {1.0})
        self.assertEqual([m["status"] for m in types(other, "done")], ["stopped"])
        self.assertEqual(len(server.messages("hello")), 1)  # the socket is rank 0's

    def test_log_never_blocks_on_a_server_that_does_not_read(self):
        server = self.server(read=False)
        proc = self.start("""
            run = trainyard.init()
            deadline = time.monotonic() + 10
            while not run._link.connected and time.monotonic() < deadline:
                time.sleep(0.01)
            assert run._link.connected
            t0 = time.monotonic()
            for step in range(20000):
                run.log(step, loss=0.25, lr=0.001, samples_per_s=12345.678, note_padding_metric=1.0)
            logged = time.monotonic() - t0
            t0 = time.monotonic()
            run.finish()
            print(json.dumps([logged, time.monotonic() - t0]))
        """, self.env(server.address))
        code, out, err = self.finish(proc, timeout=25)
        self.assertEqual(code, 0, err)
        logged, finishing = json.loads(out)
        self.assertLess(logged, 5.0)
        self.assertLess(finishing, 3.0)  # waits at most 2 s for the socket
        self.assertEqual(len(types(self.metrics(), "metric")), 20000)
        self.assertEqual(self.metrics()[-1]["type"], "done")

    def test_malformed_connect_is_an_error(self):
        proc = self.start("""
            try:
                trainyard.init()
            except ValueError as error:
                print("ValueError", "TRAINYARD_CONNECT" in str(error))
        """, self.env("pipe:/x"))
        code, out, err = self.finish(proc)
        self.assertEqual((code, out.strip()), (0, "ValueError True"), err)

    def test_config_file_wins_over_the_script_defaults_and_is_reported(self):
        config = os.path.join(self.run_dir, "config.json")
        with open(config, "w") as f:
            json.dump({"lr": 1, "dim": 64, "opt": "sgd"}, f)
        proc = self.start("""
            run = trainyard.init(config={"lr": 0.1, "dim": 32, "layers": 2, "tags": ["a"], "note": None})
            print(json.dumps(run.config, sort_keys=True))
        """, self.env(TRAINYARD_CONFIG=config))
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        used = json.loads(out)
        # Trainyard's values win; 1 for a float setting is a float.
        self.assertEqual(used, {"lr": 1.0, "dim": 64, "opt": "sgd", "layers": 2, "tags": ["a"], "note": None})
        self.assertIsInstance(used["lr"], float)
        with open(os.path.join(self.run_dir, "params.json")) as f:
            params = json.load(f)
        self.assertEqual(params, {"lr": 1.0, "dim": 64, "opt": "sgd", "layers": 2, "note": None})
        warnings = [m["text"] for m in types(self.metrics(), "log") if m.get("level") == "warning"]
        self.assertTrue(any("tags" in w for w in warnings), warnings)
        with open(config) as f:
            self.assertEqual(json.load(f), {"lr": 1, "dim": 64, "opt": "sgd"})  # Trainyard's file is never written

    def test_config_without_trainyard_is_the_defaults(self):
        proc = self.start("""
            run = trainyard.init(config={"lr": 0.1})
            plain = trainyard.init()
            print(json.dumps(run.config), plain is run)
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual((code, out.strip()), (0, '{"lr": 0.1} True'), err)
        with open(os.path.join(self.run_dir, "params.json")) as f:
            self.assertEqual(json.load(f), {"lr": 0.1})

    def test_no_config_writes_no_params_file(self):
        proc = self.start("""
            run = trainyard.init()
            print(run.config)
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual((code, out.strip()), (0, "{}"), err)
        self.assertFalse(os.path.exists(os.path.join(self.run_dir, "params.json")))

    def test_a_bad_config_file_is_an_error(self):
        target = os.path.join(self.tmp, "elsewhere.json")
        with open(target, "w") as f:
            f.write('{"lr": 0.1}')
        link = os.path.join(self.run_dir, "config.json")
        os.symlink(target, link)
        listed = os.path.join(self.tmp, "list.json")
        with open(listed, "w") as f:
            f.write("[1, 2]")
        fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(fifo)
        for path, words in ((link, "cannot be read"), (listed, "no JSON object"), (fifo, "not a regular file"),
                            (os.path.join(self.tmp, "missing.json"), "cannot be read")):
            proc = self.start("""
                try:
                    trainyard.init(config={"lr": 0.5})
                except ValueError as error:
                    print("ValueError", str(error))
            """, self.env(TRAINYARD_CONFIG=path))
            code, out, err = self.finish(proc)
            self.assertEqual(code, 0, err)
            self.assertTrue(out.startswith("ValueError TRAINYARD_CONFIG " + path), out)
            self.assertIn(words, out)

    def test_config_must_be_a_mapping(self):
        proc = self.start("""
            try:
                trainyard.init(config=[("lr", 1)])
            except TypeError as error:
                print("TypeError", str(error))
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        self.assertIn("TypeError config must be a mapping", out)

    def test_config_takes_attributes_and_every_change_rewrites_params(self):
        proc = self.start("""
            run = trainyard.init(config={"lr": 0.1})
            config = run.config
            out = [config.lr, config["lr"], isinstance(config, dict)]
            config.batch = 32
            config.update({"wd": 0.01}, opt="adam")
            out.append(config.setdefault("dim", 64))
            out.append(config.setdefault("lr", 9))
            out += [config.get("missing", "no"), "batch" in config, sorted(config), dict(config)]
            try:
                config.missing
            except AttributeError as error:
                out.append("AttributeError")
            with open(os.path.join(run.run_dir, "params.json")) as f:
                out.append(json.load(f))
            config["tensor"] = [1]
            config.tensor2 = [2]
            config["tensor"] = [3]
            out.append(json.dumps(config, sort_keys=True))
            print(json.dumps(out))
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        result = json.loads(out)
        values = {"lr": 0.1, "batch": 32, "wd": 0.01, "opt": "adam", "dim": 64}
        self.assertEqual(result[:6], [0.1, 0.1, True, 64, 0.1, "no"])
        self.assertEqual(result[6:11], [True, sorted(values), values, "AttributeError", values])
        self.assertEqual(json.loads(result[11]), dict(values, tensor=[3], tensor2=[2]))
        with open(os.path.join(self.run_dir, "params.json")) as f:
            self.assertEqual(json.load(f), values)
        warnings = [m["text"] for m in types(self.metrics(), "log") if m.get("level") == "warning"]
        self.assertEqual(len(warnings), 2, warnings)  # once per key params.json cannot hold
        self.assertIn("tensor", warnings[0])
        self.assertIn("tensor2", warnings[1])

    def test_config_set_after_init_without_config_writes_params(self):
        proc = self.start("""
            run = trainyard.init()
            run.config.lr = 0.5
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.run_dir, "params.json")) as f:
            self.assertEqual(json.load(f), {"lr": 0.5})

    def test_module_level_log_finish_config_and_summary(self):
        proc = self.start("""
            errors = []
            for call in (lambda: trainyard.log({"a": 1}), lambda: trainyard.finish(), lambda: trainyard.config,
                         lambda: trainyard.summary):
                try:
                    call()
                except RuntimeError as error:
                    errors.append(str(error))
            print(json.dumps(errors))
            run = trainyard.init(config={"lr": 0.1})
            trainyard.config.wd = 0.5
            trainyard.log({"loss": 0.5}, step=3)
            trainyard.summary["best"] = 1
            print(json.dumps([trainyard.config.lr, trainyard.config is run.config, trainyard.summary is run.summary,
                              trainyard.finish(), trainyard.finish(), run.finished, hasattr(trainyard, "nothing")]))
            again = trainyard.init(run_dir=os.path.join(run.run_dir, "second"))
            trainyard.log({"loss": 0.25})
            print(json.dumps([again is run, again.finished]))
        """, self.env(inside=False), cwd=self.tmp)
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        first, second, third = out.splitlines()
        errors = json.loads(first)
        self.assertEqual(len(errors), 4)
        for error in errors:
            self.assertIn("call trainyard.init() first", error)
        self.assertEqual(json.loads(second), [0.1, True, True, 0, 0, True, False])
        self.assertEqual(json.loads(third), [False, False])
        folders = os.listdir(os.path.join(self.tmp, "trainyard-runs"))
        self.assertEqual(len(folders), 1)
        first_dir = os.path.join(self.tmp, "trainyard-runs", folders[0])
        lines = read_jsonl(os.path.join(first_dir, "metrics.jsonl"))
        self.assertEqual([m["step"] for m in types(lines, "metric")], [3])
        self.assertEqual(len(types(lines, "done")), 1)
        self.assertEqual(types(lines, "summary")[0]["best"], 1)
        with open(os.path.join(first_dir, "params.json")) as f:
            self.assertEqual(json.load(f), {"lr": 0.1, "wd": 0.5})
        lines = read_jsonl(os.path.join(first_dir, "second", "metrics.jsonl"))
        self.assertEqual([(m["step"], m["loss"]) for m in types(lines, "metric")], [(0, 0.25)])
        self.assertEqual(types(lines, "done")[0]["status"], "finished")  # at exit

    def test_log_commit_false_joins_the_next_line_of_its_step(self):
        proc = self.start("""
            run = trainyard.init()
            run.log({"a": 1}, commit=False)
            run.log({"a": 9, "b": 2}, commit=False)
            run.log({"loss": 0.5})                  # step 0: a, b and loss
            run.log({"c": 3}, step=5, commit=False)
            run.log({"d": 4}, step=6)               # step 5 written first, on its own
            run.log({"e": 5}, commit=False)         # the next step: 7
            run.log({"f": 6}, step=7)
            run.log({"g": 7}, step=8, commit=False)
            run.log(8, loss=0.25, g=8)              # this line's own value wins
            try:
                run.log({"flag": True}, commit=False)
            except TypeError as error:
                print("TypeError")
            run.log({"h": 9}, commit=False)         # written by finish()
            run.finish()
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual((code, out.strip()), (0, "TypeError"), err)
        metrics = [{k: v for k, v in m.items() if k not in ("type", "wall", "epoch")}
                   for m in types(self.metrics(), "metric")]
        self.assertEqual(metrics, [{"step": 0, "a": 9, "b": 2, "loss": 0.5}, {"step": 5, "c": 3}, {"step": 6, "d": 4},
                                   {"step": 7, "e": 5, "f": 6}, {"step": 8, "g": 8, "loss": 0.25},
                                   {"step": 9, "h": 9}])
        self.assertEqual(self.metrics()[-1]["type"], "done")

    def test_init_tags_and_notes_seed_notes_json_once(self):
        proc = self.start("""
            run = trainyard.init(tags=["baseline", "  lr   sweep ", "baseline", ""], notes="first try", group="g1")
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        path = os.path.join(self.run_dir, "notes.json")
        with open(path) as f:
            self.assertEqual(json.load(f), {"tags": ["baseline", "lr sweep", "group:g1"], "note": "first try"})
        with open(path, "w") as f:
            json.dump({"tags": ["edited"], "note": ""}, f)  # the app's edit wins over a resumed run's init
        proc = self.start("""
            trainyard.init(tags=["again"], notes="again")
        """, self.env())
        self.assertEqual(self.finish(proc)[0], 0)
        with open(path) as f:
            self.assertEqual(json.load(f), {"tags": ["edited"], "note": ""})
        os.unlink(path)
        proc = self.start("""
            trainyard.init(tags=[], notes="")
            out = []
            for kwargs in ({"tags": "one"}, {"tags": ["a,b"]}, {"tags": [1]}, {"notes": 2}, {"group": 3}):
                try:
                    trainyard._session._notes_from(kwargs.get("tags"), kwargs.get("notes"), kwargs.get("group"))
                except (TypeError, ValueError) as error:
                    out.append(type(error).__name__)
            print(json.dumps(out))
        """, self.env())
        code, out, err = self.finish(proc)
        self.assertEqual((code, json.loads(out)), (0, ["TypeError", "ValueError", "TypeError", "TypeError",
                                                       "TypeError"]), err)
        self.assertFalse(os.path.exists(path))  # no tags and no note: no file, as the app keeps it

    def test_every_module_imports_only_the_standard_library(self):
        package = os.path.join(PYTHON_DIR, "trainyard")
        stdlib = getattr(sys, "stdlib_module_names", None)
        if stdlib is None:
            self.skipTest("Python < 3.10 has no sys.stdlib_module_names")
        for name in sorted(os.listdir(package)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(package, name)) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [alias.name.split(".")[0] for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:  # not the package's own
                    modules = [node.module.split(".")[0]]
                else:
                    continue
                for module in modules:
                    self.assertIn(module, stdlib, "%s imports %s" % (name, module))

    def test_constants(self):
        sys.path.insert(0, PYTHON_DIR)
        try:
            import trainyard
        finally:
            sys.path.remove(PYTHON_DIR)
        self.assertEqual(trainyard.PROTOCOL_VERSION, 1)
        self.assertEqual(trainyard.__version__, "0.1.0")
        self.assertIn("run = trainyard.init()", trainyard.__doc__)


if __name__ == "__main__":
    unittest.main()
