"""`pip install ./python` into a fresh virtual environment, offline, and a run
reported by the installed copy (not the source tree's) over a socket.

    python3 tests/python/check_pip_install.py PYTHON_DIR VERSION [PACKAGE_PREFIX]

VERSION is the C++ project's (CMakeLists.txt), which the installed
distribution, trainyard-client (`import trainyard`), must carry. Also checks that the install leaves the source tree
as it was; that a script outside Trainyard imports the installed module
without PYTHONPATH and writes a run folder of its own (metrics.jsonl and
status.json); that uninstalling removes the package; the editable install
(`pip install -e`), which follows its source tree; and the sdist.
PACKAGE_PREFIX is where `cmake --install` put the package's files: the pip
project it ships (share/trainyard/python) must install the same way. Without
venv or ensurepip (Debian's python3-venv) it exits 77, a skip for ctest,
except in CI (TRAINYARD_CI=1), where it fails.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading

TOKEN = "pip-check-token-81d3"
# The pip project's name; the module it installs is `trainyard`.
DISTRIBUTION = "trainyard-client"

# Run inside the venv, from a folder of its own: no source tree on sys.path.
SCRIPT = r"""
import importlib.metadata, json, os, sys
import trainyard
expected_prefix, version = sys.argv[1], sys.argv[2]
assert os.path.realpath(trainyard.__file__).startswith(os.path.realpath(expected_prefix)), trainyard.__file__
assert trainyard.__version__ == version == importlib.metadata.version("trainyard-client"), \
    (trainyard.__version__, importlib.metadata.version("trainyard-client"), version)
# The distribution is trainyard-client, whatever the module is called: the
# name `trainyard` on PyPI is another project's.
try:
    importlib.metadata.distribution("trainyard")
    raise AssertionError("a distribution named trainyard is installed")
except importlib.metadata.PackageNotFoundError:
    pass
run = trainyard.init()
run.log(0, loss=2.0, total_steps=2)
run.log(1, loss=1.0, lr=0.1)
run.eval("valid", 1, accuracy=0.5)
run.checkpoint(1, os.path.join(run.checkpoint_dir, "step-1.pt"))
code = run.finish()
print(json.dumps({"file": trainyard.__file__, "code": code}))
"""

# A script outside Trainyard: no TRAINYARD_ variable, no PYTHONPATH.
OUTSIDE = r"""
import json, sys
import trainyard
run = trainyard.init(config={"lr": 0.1})
run.log(0, loss=2.0)
run.log(acc=0.5)
run.summary["best_acc"] = 0.5
run.finish()
print(json.dumps({"file": trainyard.__file__, "dir": run.run_dir, "marker": getattr(trainyard, "MARKER", None)}))
"""


def missing(why):
    print("check_pip_install: %s (Debian: apt-get install python3-venv; packaging/install-deps.sh)" % why)
    sys.exit(1 if os.environ.get("TRAINYARD_CI") == "1" else 77)


def run(argv, env, cwd=None, timeout=300):
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=timeout)
    if done.returncode != 0:
        print(done.stdout)
        raise SystemExit("check_pip_install: %s exited %d" % (" ".join(argv), done.returncode))
    return done.stdout


def outside(python, env, work, expected_prefix):
    """Runs OUTSIDE from a folder of its own; checks the run folder it wrote
    and that it imported the module from under `expected_prefix`."""
    cwd = tempfile.mkdtemp(dir=work)
    script = os.path.join(cwd, "outside.py")
    with open(script, "w") as f:
        f.write(OUTSIDE)
    result = json.loads(run([python, script], env, cwd=cwd).strip().splitlines()[-1])
    if not os.path.realpath(result["file"]).startswith(os.path.realpath(expected_prefix)):
        raise SystemExit("check_pip_install: outside Trainyard the module came from %s" % result["file"])
    folder = result["dir"]
    if os.path.dirname(folder) != os.path.join(os.path.realpath(cwd), "trainyard-runs"):
        raise SystemExit("check_pip_install: outside Trainyard the run folder is %s" % folder)
    with open(os.path.join(folder, "metrics.jsonl")) as f:
        kinds = [json.loads(line)["type"] for line in f]
    with open(os.path.join(folder, "status.json")) as f:
        status = json.load(f)
    with open(os.path.join(folder, "params.json")) as f:
        params = json.load(f)
    if kinds != ["log", "metric", "metric", "summary", "done"] or status["state"] != "finished" \
            or params != {"lr": 0.1}:
        raise SystemExit("check_pip_install: outside Trainyard %s wrote %s, %s, %s" % (folder, kinds, status, params))
    return result


def tree(folder):
    """Every file below `folder`, bytecode caches left out (any import writes those)."""
    out = set()
    for top, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out.update(os.path.relpath(os.path.join(top, f), folder) for f in files)
    return out


class Orchestrator:
    """A unix-socket metrics server that keeps the lines of its one connection."""

    def __init__(self, path):
        self.lines = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.server.settimeout(60)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.server.accept()
        buf = b""
        with conn:
            while not any(line.get("type") == "done" for line in self.lines):
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
                *complete, buf = buf.split(b"\n")
                self.lines += [json.loads(line) for line in complete]


def main():
    python_dir, version = os.path.abspath(sys.argv[1]), sys.argv[2]
    package_prefix = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
    try:
        import ensurepip  # noqa: F401 (Debian ships it in python3-venv)
        import venv  # noqa: F401
    except ImportError as error:
        missing("no %s module in %s" % (error.name, sys.executable))

    work = tempfile.mkdtemp(prefix="trainyard-pip-")
    try:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PIP_", "PYTHON", "TRAINYARD_", "VIRTUAL_ENV"))}
        # Offline by construction: no index, no find-links, no user or site pip.conf.
        env.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1",
                   PYTHONNOUSERSITE="1")
        venv_dir = os.path.join(work, "venv")
        made = subprocess.run([sys.executable, "-m", "venv", venv_dir], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        python = os.path.join(venv_dir, "bin", "python")
        if made.returncode != 0 or not os.path.exists(python):
            print(made.stdout)
            missing("`%s -m venv` failed" % sys.executable)
        pip = [python, "-m", "pip"]
        site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env).strip()

        before = tree(python_dir)
        print(run(pip + ["install", python_dir], env).strip().splitlines()[-1])
        infos = sorted(n for n in os.listdir(site) if n.endswith(".dist-info") and n.startswith("trainyard"))
        if infos != ["trainyard_client-%s.dist-info" % version]:
            raise SystemExit("check_pip_install: installed %s, not trainyard_client-%s.dist-info" % (infos, version))
        listed = json.loads(run(pip + ["list", "--format=json"], env))
        if {"name": DISTRIBUTION, "version": version} not in listed:
            raise SystemExit("check_pip_install: pip list shows %s" % listed)
        after = tree(python_dir)
        if after != before:
            raise SystemExit("check_pip_install: the install changed the source tree: %s"
                             % sorted(after.symmetric_difference(before)))

        # A run over a socket, reported by the installed copy.
        script = os.path.join(work, "report.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        server = Orchestrator(os.path.join(work, "metrics.sock"))
        run_dir = os.path.join(work, "run")
        run_env = dict(env, TRAINYARD_RUN_DIR=run_dir, TRAINYARD_RUN_NAME="pip-check", TRAINYARD_TOKEN=TOKEN,
                       TRAINYARD_CONNECT="unix:" + os.path.join(work, "metrics.sock"))
        result = json.loads(run([python, script, site, version], run_env, cwd=work).strip().splitlines()[-1])
        server.thread.join(30)
        with open(os.path.join(run_dir, "metrics.jsonl")) as f:
            in_file = [json.loads(line) for line in f]
        types = [line["type"] for line in server.lines if line["type"] not in ("log", "heartbeat")]
        if types != ["hello", "metric", "metric", "eval", "checkpoint", "done"] or result["code"] != 0:
            raise SystemExit("check_pip_install: over the socket %s, exit code %s" % (types, result["code"]))
        if server.lines[0].get("token") != TOKEN or server.lines[0].get("run") != "pip-check":
            raise SystemExit("check_pip_install: hello %s" % server.lines[0])
        if in_file != server.lines[1:]:
            raise SystemExit("check_pip_install: metrics.jsonl differs from the socket's lines")
        print("installed copy %s reported %d lines" % (result["file"], len(server.lines)))
        outside(python, env, work, site)

        # Uninstalling takes every file the wheel put there (its RECORD is right).
        run(pip + ["uninstall", "-y", DISTRIBUTION], env)
        if os.path.exists(os.path.join(site, "trainyard")) or \
                any(n.startswith("trainyard") for n in os.listdir(site)):
            raise SystemExit("check_pip_install: uninstall left %s" %
                             [n for n in os.listdir(site) if n.startswith("trainyard")])

        # Editable: the source tree's module, changes included. Installed
        # from a copy, which this may change; the real tree is left alone.
        source = os.path.join(work, "source")
        shutil.copytree(python_dir, source, ignore=shutil.ignore_patterns("__pycache__"))
        run(pip + ["install", "-e", source], env)
        where = run([python, "-c", "import trainyard; print(trainyard.__file__)"], env, cwd=work).strip()
        if os.path.dirname(os.path.realpath(where)) != os.path.join(os.path.realpath(source), "trainyard"):
            raise SystemExit("check_pip_install: the editable install imports %s" % where)
        with open(os.path.join(source, "trainyard", "__init__.py"), "a") as f:
            f.write("\nMARKER = 'edited'\n")
        if outside(python, env, work, source)["marker"] != "edited":
            raise SystemExit("check_pip_install: the editable install does not follow its source tree")
        run(pip + ["uninstall", "-y", DISTRIBUTION], env)
        if run([python, "-c", "import importlib.util; print(importlib.util.find_spec('trainyard'))"], env,
               cwd=work).strip() != "None":
            raise SystemExit("check_pip_install: uninstalling the editable install left the module importable")

        # The sdist builds the same wheel again: it carries the backend.
        sdist = run([python, "-c", textwrap.dedent("""
            import sys
            sys.path.insert(0, sys.argv[1])
            import trainyard_build
            print(trainyard_build.build_sdist(sys.argv[2]))
            """), os.path.join(python_dir, "backend"), os.path.join(work, "dist")], env, cwd=python_dir).strip()
        if sdist != "trainyard_client-%s.tar.gz" % version:
            raise SystemExit("check_pip_install: the sdist is %s" % sdist)
        run(pip + ["install", os.path.join(work, "dist", sdist)], env)
        run([python, "-c", "import trainyard; trainyard.Run"], env, cwd=work)
        run(pip + ["uninstall", "-y", DISTRIBUTION], env)
        what = "wheel, editable, sdist"

        # The Debian package's copy of the pip project, for a venv or a conda
        # environment that does not see /usr/lib/python3/dist-packages.
        if package_prefix:
            shipped = os.path.join(package_prefix, "share", "trainyard", "python")
            run(pip + ["install", shipped], env)
            outside(python, env, work, site)
            what += ", the package's " + shipped
        print("ok: %s -m venv, pip install (%s) offline; version %s" % (sys.executable, what, version))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
