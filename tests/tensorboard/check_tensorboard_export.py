"""`trainyard export --tensorboard` read back by an independent reader:
protobuf's own parser (the messages compiled by protoc from
tensorboard_events.proto, written from TensorBoard's published field
numbers), every record's two CRCs checked with crcmod's CRC-32C, and every
scalar compared with the run's metrics.jsonl (steps exact, values within
float32, wall time = status.json's "started" + the line's "wall"). With
TensorBoard installed, its EventAccumulator reads the files too. The other
way round: a file of TF2 tensor scalars (float in tensor_content and
float_val, double in double_val) and TF1 simple_values written here with
protobuf, read by Trainyard (`trainyard export` of the logs folder, as CSV).

Usage: check_tensorboard_export.py TRAINYARD_BINARY. Exits 77 (skipped) when
protobuf, crcmod or protoc is missing."""

import datetime
import importlib
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77

try:
    import crcmod.predefined
    import google.protobuf  # noqa: F401
except ImportError as e:
    print("skipped: %s (install python3-protobuf and python3-crcmod)" % e)
    sys.exit(SKIP)
PROTOC = shutil.which("protoc")
if not PROTOC:
    print("skipped: no protoc (install protobuf-compiler)")
    sys.exit(SKIP)

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINYARD = sys.argv[1]
crc32c = crcmod.predefined.mkCrcFun("crc-32c")
failures = []


def check(condition, text):
    if not condition:
        failures.append(text)
    return condition


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    """Every record's data, both CRCs checked."""
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 0, []
    while pos < len(data):
        header = data[pos:pos + 12]
        if not check(len(header) == 12, "%s: truncated header at %d" % (path, pos)):
            break
        (length,) = struct.unpack("<Q", header[:8])
        (length_crc,) = struct.unpack("<I", header[8:12])
        check(length_crc == masked(crc32c(header[:8])), "%s: length CRC at %d" % (path, pos))
        body = data[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        check(data_crc == masked(crc32c(body)), "%s: data CRC at %d" % (path, pos))
        out.append(body)
        pos += 16 + length
    return out


def as_float32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def expected_scalars(run_dir):
    """{(tag, step): (value, wall)} from metrics.jsonl, read here: a metric
    line's numbers but step, wall, epoch and total_steps; an eval line's as
    split/name (not its epoch)."""
    out = {}
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        for line in f:
            m = json.loads(line)
            if m.get("type") == "metric":
                names = {k: v for k, v in m.items() if k not in ("type", "wall", "step", "epoch", "total_steps")}
            elif m.get("type") == "eval":
                names = {"%s/%s" % (m["split"], k): v for k, v in m.items()
                         if k not in ("type", "wall", "step", "epoch", "split", "total_steps")}
            else:
                continue
            for tag, value in names.items():
                out[(tag, m["step"])] = (value, m["wall"])
    return out


def write_runs(root):
    """A runs root of an experiment with a sweep: two trials and a run of its own."""
    os.makedirs(os.path.join(root, "runs"))
    experiment = os.path.join(root, "tb.json")
    with open(experiment, "w") as f:
        json.dump({"name": "tb", "runs_root": "runs", "lanes": [{"device": "cpu", "slots": 1}],
                   "sweeps": [{"name": "sw",
                               "base": {"model": {"type": "transe"}, "data": {"kind": "kg", "path": "data"},
                                        "train": {"epochs": 2}},
                               "space": {"train.lr": {"values": [0.01, 0.1]}, "model.dim": {"values": [8]}},
                               "method": "grid", "objective": {"metric": "valid/mrr", "mode": "max"}}]}, f)
    starts = {}
    for index, (name, lr) in enumerate((("sw-1", 0.01), ("sw-2", 0.1), ("alpha", None))):
        run = os.path.join(root, "runs", name)
        os.makedirs(run)
        spec = {"name": name, "model": {"type": "transe", "dim": 8}, "data": {"kind": "kg", "path": "data"},
                "train": {"epochs": 2}}
        if lr is not None:
            spec["train"]["lr"] = lr
        with open(os.path.join(run, "spec.json"), "w") as f:
            json.dump(spec, f)
        started = "2026-12-06T17:33:%02d.603Z" % (10 + index)
        starts[name] = datetime.datetime.strptime(started, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        with open(os.path.join(run, "status.json"), "w") as f:
            json.dump({"state": "finished", "started": started, "ended": started, "device": "cpu"}, f)
        with open(os.path.join(run, "metrics.jsonl"), "w") as f:
            f.write(json.dumps({"type": "log", "level": "info", "text": "hello", "wall": 0.01}) + "\n")
            for step in range(1, 21):
                f.write(json.dumps({"type": "metric", "step": step, "epoch": 1 + step // 11, "total_steps": 20,
                                    "loss": 2.0 / step + index * 0.1, "lr": lr or 0.05,
                                    "samples_per_s": 1000.0 + step * 3.3, "wall": 0.1 * step + 0.0123}) + "\n")
                if step % 10 == 0:
                    f.write(json.dumps({"type": "eval", "split": "valid", "step": step, "epoch": step // 10,
                                        "mrr": 0.1 * step / 7, "hits@10": 0.3 + step / 100.0,
                                        "wall": 0.1 * step + 0.05}) + "\n")
            f.write(json.dumps({"type": "eval", "split": "test", "step": 20, "epoch": 2, "mrr": 0.2718,
                                "wall": 2.5}) + "\n")
    return experiment, starts


def frame(data):
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked(crc32c(header))) + data + struct.pack("<I", masked(crc32c(data)))


def check_tf2_file_read(pb, tmp):
    """Trainyard reads what another writer wrote: every scalar of a file
    made here comes back in `trainyard export`'s CSV."""
    start = 1765000000.25
    events = [pb.Event(wall_time=start, file_version="brain.Event:2")]
    expected = {}
    for step in range(1, 6):
        wall = start + 0.5 * step
        loss = pb.Summary.Value(tag="loss", tensor=pb.TensorProto(
            dtype=1, tensor_content=struct.pack("<f", 1.0 / step)))
        loss.metadata.plugin_data.plugin_name = "scalars"
        loss.metadata.data_class = 1
        acc = pb.Summary.Value(tag="valid/accuracy", tensor=pb.TensorProto(dtype=2, double_val=[0.1 * step]))
        lr = pb.Summary.Value(tag="lr", tensor=pb.TensorProto(dtype=1, float_val=[0.01 * step]))
        old = pb.Summary.Value(tag="grad_norm", simple_value=2.5 * step)
        events.append(pb.Event(wall_time=wall, step=step, summary=pb.Summary(value=[loss, acc, lr, old])))
        expected[("loss", step)] = as_float32(1.0 / step)
        expected[("valid/accuracy", step)] = 0.1 * step  # a double stays a double
        expected[("lr", step)] = as_float32(0.01 * step)
        expected[("grad_norm", step)] = as_float32(2.5 * step)
    run = os.path.join(tmp, "tf2logs", "tf2-run")
    os.makedirs(run)
    with open(os.path.join(run, "events.out.tfevents.1765000000.host.1.v2"), "wb") as f:
        for event in events:
            f.write(frame(event.SerializeToString()))
    done = subprocess.run([TRAINYARD, "export", os.path.join(tmp, "tf2logs")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    if not check(done.returncode == 0, "export of TF2 logs failed (%d): %s" % (done.returncode, done.stderr)):
        return
    lines = done.stdout.splitlines()
    check(lines[0] == "run,step,epoch,wall,metric,value", "CSV header %r" % lines[0])
    got = {}
    for line in lines[1:]:
        run_name, step, _epoch, wall, metric, value = line.split(",")
        check(run_name == "tf2-run", "run %r" % run_name)
        got[(metric, int(step))] = float(value)
        check(abs(float(wall) - 0.5 * int(step)) < 1e-5, "%s at %s: wall %s, not %s" % (
            metric, step, wall, 0.5 * int(step)))
    check(got == expected, "TF2 file read back as %s, not %s" % (sorted(got.items())[:4], sorted(expected.items())[:4]))
    print("tf2-run: Trainyard read the %d scalars written here" % len(got))


def main():
    tmp = tempfile.mkdtemp(prefix="trainyard-tb-")
    try:
        proto_out = os.path.join(tmp, "proto")
        os.makedirs(proto_out)
        subprocess.run([PROTOC, "--proto_path=" + HERE, "--python_out=" + proto_out, "tensorboard_events.proto"],
                       check=True)
        sys.path.insert(0, proto_out)
        pb = importlib.import_module("tensorboard_events_pb2")

        experiment, starts = write_runs(tmp)
        out = os.path.join(tmp, "tb")
        done = subprocess.run([TRAINYARD, "export", "--tensorboard", out, experiment],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if not check(done.returncode == 0, "export failed (%d): %s" % (done.returncode, done.stderr)):
            return
        check(sorted(os.listdir(out)) == ["alpha", "sw-1", "sw-2"], "run folders: %s" % os.listdir(out))
        files = {}
        for run in sorted(os.listdir(out)):
            names = os.listdir(os.path.join(out, run))
            check(len(names) == 1 and names[0].startswith("events.out.tfevents.")
                  and names[0].endswith(".trainyard"), "%s: %s" % (run, names))
            path = os.path.join(out, run, names[0])
            files[run] = path
            events = []
            for data in records(path):
                event = pb.Event()
                event.ParseFromString(data)
                events.append(event)
            check(events and events[0].file_version == "brain.Event:2", "%s: no version first" % path)
            got, hparams = {}, None
            for event in events[1:]:
                for value in event.summary.value:
                    if value.metadata.plugin_data.plugin_name == "hparams":
                        check(value.tag == "_hparams_/session_start_info", "hparams tag %r" % value.tag)
                        content = pb.HParamsPluginData()
                        content.ParseFromString(value.metadata.plugin_data.content)
                        check(content.version == 0, "hparams version")
                        hparams = {k: v.number_value if v.HasField("number_value") else
                                   v.string_value if v.HasField("string_value") else v.bool_value
                                   for k, v in content.session_start_info.hparams.items()}
                        continue
                    check(value.HasField("simple_value"), "%s: %s is no simple_value" % (path, value.tag))
                    check((value.tag, event.step) not in got, "%s: %s twice at %d" % (path, value.tag, event.step))
                    got[(value.tag, event.step)] = (value.simple_value, event.wall_time)
            expected = expected_scalars(os.path.join(tmp, "runs", run))
            check(sorted(got) == sorted(expected), "%s: tags and steps differ: extra %s, missing %s" % (
                run, sorted(set(got) - set(expected))[:5], sorted(set(expected) - set(got))[:5]))
            for key, (value, wall) in expected.items():
                if key not in got:
                    continue
                got_value, got_wall = got[key]
                check(got_value == as_float32(value), "%s %s: %r, not %r" % (run, key, got_value, value))
                check(abs(got_wall - (starts[run] + wall)) < 1e-5, "%s %s: wall %r, not %r" % (
                    run, key, got_wall, starts[run] + wall))
            if run == "alpha":
                check(hparams is None, "alpha is no trial but has hparams %s" % hparams)
            else:
                want = {"train.lr": 0.01 if run == "sw-1" else 0.1, "model.dim": 8.0}
                check(hparams == want, "%s: hparams %s, not %s" % (run, hparams, want))
            print("%s: %d scalars, both CRCs of %d records right" % (run, len(got), len(events)))

        check_tf2_file_read(pb, tmp)

        # History is kept: a second export into the same folder is refused and writes nothing.
        before = open(files["alpha"], "rb").read()
        again = subprocess.run([TRAINYARD, "export", "--tensorboard", out, experiment],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        check(again.returncode == 1 and "already holds files" in again.stderr, "second export: %d %s" % (
            again.returncode, again.stderr))
        check(open(files["alpha"], "rb").read() == before and len(os.listdir(os.path.join(out, "alpha"))) == 1,
              "the second export changed a file")

        try:
            from tensorboard.backend.event_processing import event_accumulator
        except ImportError as e:
            print("skipped the EventAccumulator part: tensorboard is not importable here (%s)" % e)
        else:
            for run, path in files.items():
                acc = event_accumulator.EventAccumulator(path, size_guidance={event_accumulator.SCALARS: 0})
                acc.Reload()
                expected = expected_scalars(os.path.join(tmp, "runs", run))
                read = {(tag, e.step): e.value for tag in acc.Tags()["scalars"] for e in acc.Scalars(tag)}
                check(set(read) == set(expected), "%s: EventAccumulator read other scalars" % run)
                check(all(math.isclose(read[k], as_float32(v[0]), rel_tol=1e-7) for k, v in expected.items()
                          if k in read), "%s: EventAccumulator values differ" % run)
            print("EventAccumulator read the same scalars")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
for failure in failures[:30]:
    print("FAIL: " + failure)
sys.exit(1 if failures else 0)
