// Experiment files: validation messages naming the JSON path and the
// expected value (checked against a catalogue in the worker's format; and
// structurally when there is none), defaults, repeats, save/load, the
// built-in demo (also against the real worker's catalogue).

#include "orchestration/board/board.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/devices/device.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"
#include "testcatalogue.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

namespace {
// The problems of `json`, checked against `catalogue` (the test catalogue
// unless told otherwise; nullptr: structurally).
QStringList errorsOf(const QByteArray &json, const ModelCatalogue *catalogue = &validationCatalogue())
{
    QStringList errors;
    const auto doc = QJsonDocument::fromJson(json);
    const auto ex =
        Experiment::fromJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), &errors, catalogue);
    if (ex) {
        return {};
    }
    return errors;
}

// One lane holding `run`.
QByteArray oneRun(const QByteArray &run)
{
    return R"({"name":"e","lanes":[{"device":"cpu","runs":[)" + run + "]}]}";
}

std::optional<ModelCatalogue> realCatalogue()
{
    const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
    if (worker.isEmpty() || !QFileInfo(worker).isExecutable()) {
        return std::nullopt;
    }
    ModelCatalogue c;
    QString error;
    if (!ModelCatalogueLoader::loadNow(worker, &c, &error)) {
        qFatal("%s", qPrintable(error));
    }
    return c;
}
} // namespace

class TestExperiment : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The one reader of device names: what each spelling is.
    void deviceNames_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("partition");
        const int invalid = int(Device::Kind::Invalid);
        QTest::newRow("cpu") << "cpu" << int(Device::Kind::Cpu) << -1 << ""
                             << "";
        QTest::newRow("cuda:0") << "cuda:0" << int(Device::Kind::Cuda) << 0 << ""
                                << "";
        QTest::newRow("cuda:999") << "cuda:999" << int(Device::Kind::Cuda) << 999 << ""
                                  << "";
        QTest::newRow("cluster") << "slurm:hpc" << int(Device::Kind::Slurm) << -1 << "hpc"
                                 << "";
        QTest::newRow("partition") << "slurm:hpc/gpu-a100" << int(Device::Kind::Slurm) << -1 << "hpc"
                                   << "gpu-a100";
        // Pools: a set of GPUs, no single index.
        QTest::newRow("cuda:*") << "cuda:*" << int(Device::Kind::Cuda) << -1 << ""
                                << "";
        QTest::newRow("cuda:0-3") << "cuda:0-3" << int(Device::Kind::Cuda) << -1 << ""
                                  << "";
        QTest::newRow("cuda:5,0,2") << "cuda:5,0,2" << int(Device::Kind::Cuda) << -1 << ""
                                    << "";
        for (const char *bad : {"",
                                "CPU",
                                "cpu ",
                                "cuda:",
                                "cuda:01",
                                "cuda:1000",
                                "cuda:-1",
                                "cuda:0x1",
                                "gpu:0",
                                "slurm:",
                                "slurm:a/b/c",
                                "slurm:/gpu",
                                "slurm:-x",
                                "slurm:.x",
                                "slurm:a b",
                                "cuda:3-1",
                                "cuda:1-1",
                                "cuda:0,0",
                                "cuda:*,1",
                                "cuda:0,",
                                "cuda:,1",
                                "cuda:0-1000",
                                "cuda:**",
                                "cuda:1-2-3",
                                "ssh:lab/cuda:0,0"}) {
            QTest::newRow(*bad ? bad : "empty") << bad << invalid << -1 << ""
                                                << "";
        }
    }
    void deviceNames()
    {
        QFETCH(QString, text);
        QFETCH(int, kind);
        const Device d = Device::parse(text);
        QCOMPARE(int(d.kind()), kind);
        QTEST(d.cudaIndex(), "index");
        QTEST(d.cluster(), "cluster");
        QTEST(d.partition(), "partition");
        QCOMPARE(d.toString(), text);
        QCOMPARE(d.isLocal(), d.isCpu() || d.isCuda());
    }

    // A pool's GPUs, and the list syntax a run placed on several GPUs runs on.
    void gpuPools()
    {
        const Device all = Device::parse(QStringLiteral("cuda:*"));
        QVERIFY(all.isPool() && all.isAllGpus() && all.isGpu() && all.isLocal());
        QVERIFY(all.gpuIndices().isEmpty());
        QCOMPARE(Device::parse(QStringLiteral("cuda:0-3")).gpuIndices(), QList<int>({0, 1, 2, 3}));
        QCOMPARE(Device::parse(QStringLiteral("cuda:5,0,2")).gpuIndices(), QList<int>({0, 2, 5}));
        const Device one = Device::parse(QStringLiteral("cuda:4"));
        QVERIFY(!one.isPool() && one.isGpu());
        QCOMPARE(one.gpuIndices(), QList<int>({4}));
        QVERIFY(!Device::parse(QStringLiteral("cpu")).isGpu());
        const Device host = Device::parse(QStringLiteral("ssh:lab/cuda:1-2"));
        QVERIFY(host.isRemote() && host.isPool() && host.remoteIsCuda() && host.isGpu());
        QCOMPARE(host.host(), QStringLiteral("lab"));
        QCOMPARE(host.remoteDevice(), QStringLiteral("cuda:1-2"));
        QCOMPARE(host.gpuIndices(), QList<int>({1, 2}));
        QCOMPARE(Device::gpus({1, 3}).toString(), QStringLiteral("cuda:1,3"));
        QCOMPARE(Device::gpus({2}, QStringLiteral("lab")).toString(), QStringLiteral("ssh:lab/cuda:2"));
        QCOMPARE(Device::gpus({1, 3}).gpuIndices(), QList<int>({1, 3}));
        // What a run placed there sees.
        LaunchSpec spec;
        spec.device = spec.target = Device::parse(QStringLiteral("cuda:1,3"));
        QCOMPARE(spec.visibleDevices(), QStringLiteral("1,3"));
        QVERIFY(spec.arguments().join(QLatin1Char(' ')).contains(QStringLiteral("--device cuda:0")));
        spec.target = Device::parse(QStringLiteral("ssh:lab/cuda:2"));
        QCOMPARE(spec.visibleDevices(), QStringLiteral("2"));
        spec.target = Device::parse(QStringLiteral("cuda:*")); // a pool not yet placed names no GPU
        QCOMPARE(spec.visibleDevices(), QString());
        spec.target = Device::parse(QStringLiteral("cpu"));
        QCOMPARE(spec.visibleDevices(), QString());
    }

    void validationNamesPathAndExpectation_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        const QByteArray run = R"({"name":"r","model":{"type":"transe"}})";
        QTest::newRow("slots") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu"},{"device":"cpu","slots":-3}]})")
                               << QStringLiteral("lanes[1].slots: expected an integer ≥ 1, got -3");
        QTest::newRow("device") << QByteArray(R"({"name":"e","lanes":[{"device":"gpu1"}]})")
                                << QStringLiteral("lanes[0].device: expected \"cpu\", \"cuda:N\", a pool "
                                                  "\"cuda:*\", \"cuda:0-3\" or \"cuda:0,2\", "
                                                  "\"slurm:CLUSTER/PARTITION\", \"ssh:HOST/cuda:N\" (or a pool) or "
                                                  "\"ssh:HOST/cpu\", got \"gpu1\"");
        QTest::newRow("lane name type") << QByteArray(R"({"name":"e","lanes":[{"name":7,"device":"cpu"}]})")
                                        << QStringLiteral("lanes[0].name: expected a lane name of 1–40 characters, "
                                                          "without control characters or a space at either end, got 7");
        QTest::newRow("lane name spaces") << QByteArray(R"({"name":"e","lanes":[{"name":" fast","device":"cpu"}]})")
                                          << QStringLiteral("lanes[0].name: expected a lane name of 1–40 characters, "
                                                            "without control characters or a space at either end, "
                                                            "got \" fast\"");
        QTest::newRow("lane name twice")
            << QByteArray(R"({"name":"e","lanes":[{"name":"fast","device":"cpu"},{"name":"fast","device":"cpu"}]})")
            << QStringLiteral("lanes[1].name: lane name \"fast\" is already used by lanes[0]");
        QTest::newRow("no lanes") << QByteArray(R"({"name":"e"})")
                                  << QStringLiteral("lanes: expected an array of lanes, got nothing");
        QTest::newRow("name") << QByteArray(R"({"name":"../etc","lanes":[]})")
                              << QStringLiteral("name: expected a name of 1–100 letters, digits or ._+@- not starting "
                                                "with '.' nor ending in .attempt-N, got \"../etc\"");
        QTest::newRow("unknown top key")
            << QByteArray(R"({"name":"e","lanes":[],"lanez":1})")
            << QStringLiteral(
                   "(top level): unknown key \"lanez\" (expected one of name, runs_root, clusters, hosts, lanes, "
                   "sweeps, on_end)");
        QTest::newRow("unknown run key") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"optimiser":"adam"}]}]})")
                                         << QStringLiteral(
                                                "lanes[0].runs[0]: unknown key \"optimiser\" (expected one of name, "
                                                "model, data, train, eval, checkpoint, report, resources, repeat, "
                                                "after, on_end)");
        QTest::newRow("missing model") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r"}]}]})")
                                       << QStringLiteral(
                                              "lanes[0].runs[0].model: missing (expected an object with a \"type\")");
        QTest::newRow("repeat") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"repeat":0}]}]})")
                                << QStringLiteral("lanes[0].runs[0].repeat: expected an integer from 1 to 1000, got 0");
        QTest::newRow("lr") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"train":{"lr":-1}}]}]})")
                            << QStringLiteral("lanes[0].runs[0].train.lr: expected a number > 0, got -1");
        QTest::newRow("epochs") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"train":{"epochs":2.5}}]}]})")
                                << QStringLiteral("lanes[0].runs[0].train.epochs: expected an integer ≥ 1, got 2.5");
        QTest::newRow("max_steps") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"train":{"max_steps":"10"}}]}]})")
                                   << QStringLiteral("lanes[0].runs[0].train.max_steps: expected an integer ≥ 1 or "
                                                     "null, got \"10\"");
        QTest::newRow("data kind") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"data":{"kind":"csv"}}]}]})")
                                   << QStringLiteral("lanes[0].runs[0].data.kind: expected one of kg, idx, "
                                                     "synthetic-kg, synthetic-images, got \"csv\"");
        QTest::newRow("split") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"eval":{"split":"train"}}]}]})")
                               << QStringLiteral(
                                      "lanes[0].runs[0].eval.split: expected \"valid\" or \"test\", got \"train\"");
        QTest::newRow("run not object") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[3]}]})")
                                        << QStringLiteral("lanes[0].runs[0]: expected a run spec object, got 3");
        QTest::newRow("duplicate names") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r-2","model":{"type":"x"}}]},{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"repeat":2}]}]})")
                                         << QStringLiteral("lanes[1].runs[0].name: run name \"r-2\" is already used by "
                                                           "lanes[0].runs[0]");
        QTest::newRow("unsafe run name") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"../../x","model":{"type":"x"}}]}]})")
                                         << QStringLiteral("lanes[0].runs[0].name: expected a name of 1–100 letters, "
                                                           "digits or ._+@- not starting with '.' nor ending in "
                                                           ".attempt-N, got \"../../x\"");
        // The folder name of a kept attempt (RunStore::archiveRunDir) is no run's.
        QTest::newRow("attempt folder name") << QByteArray(
            R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r.attempt-1","model":{"type":"x"}}]}]})")
                                             << QStringLiteral("lanes[0].runs[0].name: expected a name of 1–100 "
                                                               "letters, digits or ._+@- not starting with '.' nor "
                                                               "ending in .attempt-N, got \"r.attempt-1\"");
        // Slurm clusters and their lanes.
        const QByteArray hpc = R"("clusters":[{"name":"hpc","sbatch":{"partition":"gpu"}}])";
        QTest::newRow("unknown cluster") << QByteArray(R"({"name":"e","lanes":[{"device":"slurm:hpc/gpu"}]})")
                                         << QStringLiteral(
                                                "lanes[0].device: no cluster \"hpc\" in clusters (none is defined)");
        QTest::newRow("other cluster")
            << QByteArray(R"({"name":"e",)" + hpc + R"(,"lanes":[{"device":"slurm:far/gpu"}]})")
            << QStringLiteral("lanes[0].device: no cluster \"far\" in clusters (expected one of hpc)");
        QTest::newRow("gres off slurm") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","gres":"gpu:1"}]})")
                                        << QStringLiteral("lanes[0].gres: only for a \"slurm:CLUSTER/PARTITION\" lane");
        QTest::newRow("gres") << QByteArray(R"({"name":"e",)" + hpc
                                            + R"(,"lanes":[{"device":"slurm:hpc/gpu","gres":"gpu 1"}]})")
                              << QStringLiteral("lanes[0].gres: expected a Slurm GRES such as \"gpu:1\" or "
                                                "\"gpu:a100:2\", got \"gpu 1\"");
        QTest::newRow("reach") << QByteArray(R"({"name":"e","clusters":[{"name":"c","reach":"telnet"}],"lanes":[]})")
                               << QStringLiteral("clusters[0].reach: expected \"local\" or \"ssh\", got \"telnet\"");
        QTest::newRow("ssh host") << QByteArray(R"({"name":"e","clusters":[{"name":"c","reach":"ssh"}],"lanes":[]})")
                                  << QStringLiteral(
                                         "clusters[0].host: expected the host to ssh to (reach \"ssh\"), got nothing");
        QTest::newRow("host without ssh")
            << QByteArray(R"({"name":"e","clusters":[{"name":"c","host":"login1"}],"lanes":[]})")
            << QStringLiteral("clusters[0].host: only with reach \"ssh\"");
        QTest::newRow("cluster name") << QByteArray(R"({"name":"e","clusters":[{"name":"a b"}],"lanes":[]})")
                                      << QStringLiteral("clusters[0].name: expected a cluster name of 1–100 letters, "
                                                        "digits or ._-, got \"a b\"");
        QTest::newRow("duplicate cluster")
            << QByteArray(R"({"name":"e","clusters":[{"name":"c"},{"name":"c"}],"lanes":[]})")
            << QStringLiteral("clusters[1].name: cluster \"c\" is already defined");
        QTest::newRow("extra args string")
            << QByteArray(
                   R"({"name":"e","clusters":[{"name":"c","sbatch":{"extra_args":"--mem=4G -N 1"}}],"lanes":[]})")
            << QStringLiteral("clusters[0].sbatch.extra_args: expected an array of sbatch options, one "
                              "\"--name=value\" each, got \"--mem=4G -N 1\"");
        QTest::newRow("extra arg split")
            << QByteArray(R"({"name":"e","clusters":[{"name":"c","sbatch":{"extra_args":["-p","gpu"]}}],"lanes":[]})")
            << QStringLiteral("clusters[0].sbatch.extra_args[0]: expected one sbatch option as \"--name=value\", "
                              "got \"-p\"");
        QTest::newRow("extra arg wrap") << QByteArray(
            R"({"name":"e","clusters":[{"name":"c","sbatch":{"extra_args":["--wrap=rm -rf ~"]}}],"lanes":[]})")
                                        << QStringLiteral(
                                               "clusters[0].sbatch.extra_args[0]: --wrap is Trainyard's to set");
        // sbatch takes a unique start of a long option for it.
        QTest::newRow("extra arg wrap prefix")
            << QByteArray(
                   R"({"name":"e","clusters":[{"name":"c","sbatch":{"extra_args":["--wr=touch x"]}}],"lanes":[]})")
            << QStringLiteral("clusters[0].sbatch.extra_args[0]: --wr is sbatch's --wrap (sbatch takes the start of "
                              "an option for it), which is Trainyard's to set");
        QTest::newRow("ssh host option") << QByteArray(
            R"({"name":"e","clusters":[{"name":"c","reach":"ssh","host":"-G","runs_root":"/r","worker":"/w"}],"lanes":[]})")
                                         << QStringLiteral("clusters[0].host: expected a host name, address or ssh "
                                                           "config alias (letters, digits, "
                                                           "._:-[], not starting with \"-\"), got \"-G\"");
        QTest::newRow("time") << QByteArray(
            R"({"name":"e","clusters":[{"name":"c","sbatch":{"time":"1h"}}],"lanes":[]})")
                              << QStringLiteral("clusters[0].sbatch.time: expected a Slurm time limit (\"30\", "
                                                "\"4:00:00\", \"2-00:00:00\"), got \"1h\"");
        QTest::newRow("runs_root")
            << QByteArray(R"({"name":"e","clusters":[{"name":"c","runs_root":"runs"}],"lanes":[]})")
            << QStringLiteral("clusters[0].runs_root: expected an absolute folder path, got \"runs\"");
        // Program runs: the shape of what they run, never a surprise.
        const auto program = [](const char *spec) {
            return QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[)") + spec + "]}]}";
        };
        QTest::newRow("program argv empty")
            << program(R"({"program":{"argv":[]}})")
            << QStringLiteral("lanes[0].runs[0].program.argv: expected a non-empty list of strings (the program and "
                              "its arguments), got an array");
        QTest::newRow("program argv string")
            << program(R"({"program":{"argv":"python3 train.py"}})")
            << QStringLiteral("lanes[0].runs[0].program.argv: expected a non-empty list of strings (the program and "
                              "its arguments), got \"python3 train.py\"");
        QTest::newRow("program argv item") << program(R"({"program":{"argv":["python3", 3]}})")
                                           << QStringLiteral("lanes[0].runs[0].program.argv[1]: expected a string "
                                                             "without NUL characters, got 3");
        QTest::newRow("program with model")
            << program(R"({"program":{"argv":["x"]},"model":{"type":"transe"}})")
            << QStringLiteral("lanes[0].runs[0].model: a program run has no model (its program reads its own data)");
        QTest::newRow("program env reserved")
            << program(R"({"program":{"argv":["x"],"env":{"TRAINYARD_TOKEN":"t"}}})")
            << QStringLiteral("lanes[0].runs[0].program.env.TRAINYARD_TOKEN: set by Trainyard for every run (its "
                              "lane, folder and socket)");
        QTest::newRow("program env cuda")
            << program(R"({"program":{"argv":["x"],"env":{"CUDA_VISIBLE_DEVICES":"0"}}})")
            << QStringLiteral("lanes[0].runs[0].program.env.CUDA_VISIBLE_DEVICES: set by Trainyard for every run "
                              "(its lane, folder and socket)");
        QTest::newRow("program train key")
            << program(R"({"program":{"argv":["x"]},"train":{"lr":0.1}})")
            << QStringLiteral("lanes[0].runs[0].train: unknown key \"lr\" (expected one of seed)");
        QTest::newRow("program unknown key")
            << program(R"({"program":{"argv":["x"],"shell":true}})")
            << QStringLiteral(
                   "lanes[0].runs[0].program: unknown key \"shell\" (expected one of argv, cwd, env, requires)");
        Q_UNUSED(run);
    }

    // A program run's defaults: its name from its script, a seed for
    // repeats, a relative folder relative to the experiment file.
    void programRunDefaults()
    {
        QTemporaryDir dir;
        const QByteArray json = R"({"name":"e","lanes":[{"device":"cpu","runs":[
            {"program":{"argv":["python3","-u","scripts/train.py"]},"repeat":2},
            {"name":"b","program":{"argv":["bash","go.sh"],"cwd":"sub"},"train":{"seed":5}}]}]})";
        const QString path = dir.filePath(QStringLiteral("e.json"));
        QVERIFY(writeFile(path, json));
        QStringList errors;
        const auto ex = Experiment::load(path, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        const QJsonObject first = expandRepeat(ex->lanes[0].runs[0].spec, 1, 2);
        QCOMPARE(first.value(QStringLiteral("name")).toString(), QStringLiteral("train-2"));
        QCOMPARE(first.value(QStringLiteral("train")).toObject().value(QStringLiteral("seed")).toInt(), 2);
        QCOMPARE(RunSpecView(first).programCwd(), QString()); // none: its run folder
        QCOMPARE(RunSpecView(ex->lanes[0].runs[1].spec).programCwd(),
                 QFileInfo(path).absolutePath() + QStringLiteral("/sub"));
        QCOMPARE(RunSpecView(first).kindLabel(), QStringLiteral("train.py"));
    }

    void validationNamesPathAndExpectation()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        const QStringList errors = errorsOf(json);
        QVERIFY2(errors.contains(message), qPrintable(errors.join(QLatin1Char('\n'))));
    }

    // Inside model, data and the sections every key comes from the catalogue.
    void catalogueChecksEveryKey_data()
    {
        QTest::addColumn<QByteArray>("run");
        QTest::addColumn<QString>("message");
        QTest::newRow("model key") << QByteArray(R"({"name":"r","model":{"type":"transe","dimm":3}})")
                                   << QStringLiteral(
                                          "lanes[0].runs[0].model.dimm: unknown key (expected one of type, dim, norm)");
        QTest::newRow("model value") << QByteArray(R"({"name":"r","model":{"type":"transe","norm":3}})")
                                     << QStringLiteral("lanes[0].runs[0].model.norm: expected 1 or 2, got 3");
        QTest::newRow("model type")
            << QByteArray(R"({"name":"r","model":{"type":"rotate"}})")
            << QStringLiteral("lanes[0].runs[0].model.type: expected one of transe, x, mlp, got \"rotate\"");
        QTest::newRow("data key")
            << QByteArray(R"({"name":"r","model":{"type":"x"},"data":{"kind":"synthetic-kg","nodes":5}})")
            << QStringLiteral(
                   "lanes[0].runs[0].data.nodes: unknown key (expected one of kind, entities, relations, triples)");
        QTest::newRow("data value") << QByteArray(R"({"name":"r","model":{"type":"x"},"data":{"kind":"kg","path":3}})")
                                    << QStringLiteral("lanes[0].runs[0].data.path: expected a path, got 3");
        QTest::newRow("data task")
            << QByteArray(R"({"name":"r","model":{"type":"transe"},"data":{"kind":"idx"}})")
            << QStringLiteral(
                   "lanes[0].runs[0].data.kind: \"idx\" holds image data but model \"transe\" needs kg data");
        QTest::newRow("train key") << QByteArray(R"({"name":"r","model":{"type":"x"},"train":{"optimiser":"adam"}})")
                                   << QStringLiteral("lanes[0].runs[0].train.optimiser: unknown key (expected one of "
                                                     "epochs, max_steps, batch_size, optimizer, lr, seed)");
        QTest::newRow("optimizer")
            << QByteArray(R"({"name":"r","model":{"type":"x"},"train":{"optimizer":"lbfgs"}})")
            << QStringLiteral(
                   "lanes[0].runs[0].train.optimizer: expected \"adam\", \"sgd\" or \"adagrad\", got \"lbfgs\"");
        QTest::newRow("report") << QByteArray(R"({"name":"r","model":{"type":"x"},"report":{"every_steps":-1}})")
                                << QStringLiteral(
                                       "lanes[0].runs[0].report.every_steps: expected an integer ≥ 0, got -1");
        QTest::newRow("section type") << QByteArray(R"({"name":"r","model":{"type":"x"},"checkpoint":5})")
                                      << QStringLiteral("lanes[0].runs[0].checkpoint: expected an object, got 5");
    }

    void catalogueChecksEveryKey()
    {
        QFETCH(QByteArray, run);
        QFETCH(QString, message);
        const QStringList errors = errorsOf(oneRun(run));
        QVERIFY2(errors.contains(message), qPrintable(errors.join(QLatin1Char('\n'))));
        // A run spec checked on its own has paths from its own top.
        const QStringList alone =
            validateRunSpec(QJsonDocument::fromJson(run).object(), QString(), false, &validationCatalogue());
        QVERIFY2(alone.contains(message.mid(int(qstrlen("lanes[0].runs[0].")))),
                 qPrintable(alone.join(QLatin1Char('\n'))));
    }

    // No catalogue (no worker, or it cannot list its models): what the
    // orchestrator itself relies on is still checked, the rest is the worker's.
    void withoutACatalogueTheChecksAreStructural()
    {
        QVERIFY(
            errorsOf(
                oneRun(
                    R"({"name":"r","model":{"type":"rotate","dimm":3},"data":{"kind":"csv","x":1},"train":{"lr":-1}})"),
                nullptr)
                .isEmpty());
        QCOMPARE(errorsOf(oneRun(R"({"name":"r","model":{"type":"x"},"optimiser":"adam"})"), nullptr),
                 QStringList{QStringLiteral("lanes[0].runs[0]: unknown key \"optimiser\" (expected one of name, model, "
                                            "data, train, eval, checkpoint, report, resources, repeat, after, "
                                            "on_end)")});
        QCOMPARE(errorsOf(oneRun(R"({"name":"r","model":{"type":""}})"), nullptr),
                 QStringList{QStringLiteral(
                     "lanes[0].runs[0].model.type: expected a model type of 1–64 letters, digits or ._+-, got \"\"")});
        QCOMPARE(errorsOf(oneRun(R"({"name":"r","model":{"type":"x"},"data":{"path":"/d"}})"), nullptr),
                 QStringList{QStringLiteral(
                     "lanes[0].runs[0].data.kind: expected a data kind of 1–64 letters, digits or ._+-, got nothing")});
        // Never a path or a command where a name belongs.
        QCOMPARE(
            errorsOf(oneRun(R"({"name":"r","model":{"type":"x"},"data":{"kind":"/bin/sh"}})"), nullptr),
            QStringList{QStringLiteral(
                "lanes[0].runs[0].data.kind: expected a data kind of 1–64 letters, digits or ._+-, got \"/bin/sh\"")});
        QCOMPARE(errorsOf(oneRun(R"({"name":"r","model":{"type":"x"},"train":{"seed":"1"}})"), nullptr),
                 QStringList{QStringLiteral("lanes[0].runs[0].train.seed: expected an integer ≥ 0, got \"1\"")});
        QCOMPARE(errorsOf(oneRun(R"({"name":"r","model":{"type":"x"},"eval":[]})"), nullptr),
                 QStringList{QStringLiteral("lanes[0].runs[0].eval: expected an object, got an array")});
    }

    void theRealWorkersCatalogue()
    {
        const auto catalogue = realCatalogue();
        if (!catalogue) {
            QSKIP("TRAINYARD_WORKER is not set to an executable trainyard-worker");
        }
        QStringList errors;
        const auto demo = Experiment::loadDemo(&errors, &*catalogue);
        QVERIFY2(demo, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(demo->toJson(), Experiment::demo().toJson());
        errors = errorsOf(oneRun(R"({"name":"r","model":{"type":"transe","dimm":3},"train":{"lr":0}})"), &*catalogue);
        QCOMPARE(errors.size(), 2);
        QVERIFY2(errors.at(0).startsWith(
                     QStringLiteral("lanes[0].runs[0].model.dimm: unknown key (expected one of type, recipe, dim, ")),
                 qPrintable(errors.at(0)));
        QCOMPARE(errors.at(1), QStringLiteral("lanes[0].runs[0].train.lr: expected a number in (0, 1000], got 0"));
        // Every published preset, with a data path, is a valid run spec.
        for (const PublishedPreset &preset : catalogue->presets()) {
            QJsonObject spec = preset.spec;
            spec.insert(QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")},
                                                            {QStringLiteral("path"), QStringLiteral("/data/kg/UMLS")}});
            const QStringList problems = validateRunSpec(spec, QStringLiteral("preset"), false, &*catalogue);
            QVERIFY2(problems.isEmpty(),
                     qPrintable(preset.name + QStringLiteral(": ") + problems.join(QStringLiteral("; "))));
        }
    }

    void everyProblemIsReported()
    {
        const QStringList errors =
            errorsOf(R"({"name":"e","lanes":[{"device":"tpu","slots":0,"runs":[{"model":{}}]}]})");
        QCOMPARE(errors.size(), 3);
    }

    void defaultsAndRepeatExpansion()
    {
        const auto ex = Experiment::fromJson(
            QJsonDocument::fromJson(
                R"({"name":"e","lanes":[{"device":"cuda:1","runs":[{"model":{"type":"transe"},"repeat":2}]}]})")
                .object(),
            nullptr);
        QVERIFY(ex);
        QCOMPARE(ex->lanes.at(0).slotCount, 1);
        const QJsonObject spec = ex->lanes.at(0).runs.at(0).spec;
        QCOMPARE(spec.value(QStringLiteral("name")).toString(), QStringLiteral("transe")); // from model.type
        QCOMPARE(ex->runCount(), 2);
        const QJsonObject second = expandRepeat(spec, 1, 2);
        QCOMPARE(second.value(QStringLiteral("name")).toString(), QStringLiteral("transe-2"));
        QCOMPARE(second.value(QStringLiteral("train")).toObject().value(QStringLiteral("seed")).toInt(), 2);
        QCOMPARE(expandRepeat(spec, 0, 1).value(QStringLiteral("name")).toString(), QStringLiteral("transe"));
    }

    void fileErrorsNameFileLineAndColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QVERIFY(writeFile(path, "{\n  \"name\": \"e\",\n  \"lanes\": [,]\n}\n"));
        QStringList errors;
        QVERIFY(!Experiment::load(path, &errors));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().startsWith(path + QStringLiteral(":3:")), qPrintable(errors.first()));
        QVERIFY(!Experiment::load(dir.filePath(QStringLiteral("missing.json")), &errors));
        QVERIFY(errors.first().contains(QStringLiteral("cannot open")));
        // A FIFO is refused, not waited on (check, export, status and the window all load through here).
        const QString fifo = dir.filePath(QStringLiteral("fifo.json"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        QVERIFY(!Experiment::load(fifo, &errors));
        QCOMPARE(errors.first(), fifo + QStringLiteral(": not a regular file"));
        QVERIFY(writeFile(path, R"({"name":"e","lanes":[{"device":"cpu","slots":-3}]})"));
        QVERIFY(!Experiment::load(path, &errors));
        QCOMPARE(errors.first(), path + QStringLiteral(": lanes[0].slots: expected an integer ≥ 1, got -3"));
    }

    void saveAndLoadRoundTrip()
    {
        QTemporaryDir dir;
        const Experiment ex = experiment(
            experimentJson(QStringLiteral("round"), QStringLiteral("/tmp/somewhere"),
                           {lane(QStringLiteral("cuda:0"), 2,
                                 {withRepeat(fakeSpec(QStringLiteral("a")), 3), fakeSpec(QStringLiteral("b"))}),
                            lane(QStringLiteral("cpu"), 1, {})}));
        const QString path = dir.filePath(QStringLiteral("e.json"));
        QString error;
        QVERIFY2(ex.save(path, &error), qPrintable(error));
        QStringList errors;
        const auto back = Experiment::load(path, &errors);
        QVERIFY2(back, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(back->toJson(), ex.toJson());
        QCOMPARE(back->lanes.at(0).runs.at(0).repeat, 3);
        QCOMPARE(back->runsRoot, QStringLiteral("/tmp/somewhere"));
        QCOMPARE(back->effectiveRunsRoot(), QStringLiteral("/tmp/somewhere"));
    }

    // every CPU lane was titled "cpu". A lane may have a name
    // (optional, kept through a save); without one its title is its device,
    // numbered from the second lane on the same device.
    void laneNamesAndTitles()
    {
        QStringList errors;
        const auto ex = Experiment::fromJson(
            QJsonDocument::fromJson(
                R"({"name":"e","lanes":[{"device":"cpu"},{"name":"big batch","device":"cpu"},{"device":"cpu"},)"
                R"({"device":"cuda:0"}]})")
                .object(),
            &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->lanes.at(0).name, QString());
        QCOMPARE(ex->lanes.at(1).name, QStringLiteral("big batch"));
        const QJsonArray lanes = ex->toJson().value(QStringLiteral("lanes")).toArray();
        QVERIFY(!lanes.at(0).toObject().contains(QStringLiteral("name"))); // none written when none is set
        QCOMPARE(lanes.at(1).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("big batch"));

        QTemporaryDir dir;
        RunRegistry runs;
        RunStore store(dir.path());
        Board board(&runs, &store);
        board.setExperiment(*ex);
        QCOMPARE(board.laneTitle(0), QStringLiteral("cpu"));
        QCOMPARE(board.laneTitle(1), QStringLiteral("big batch"));
        QCOMPARE(board.laneTitle(2), QStringLiteral("cpu 3")); // the third lane on the CPU
        QCOMPARE(board.laneTitle(3), QStringLiteral("cuda:0"));
        QString error;
        QVERIFY(!board.setLaneName(0, QStringLiteral("big batch"), &error));
        QCOMPARE(error, QStringLiteral("lane name: \"big batch\" is already the name of another lane"));
        QVERIFY(!board.setLaneName(0, QStringLiteral("a\tb"), &error));
        QVERIFY(board.setLaneName(2, QStringLiteral("small"), &error));
        QCOMPARE(board.laneTitle(2), QStringLiteral("small"));
        QCOMPARE(board.toExperiment(QStringLiteral("e"), QString()).lanes.at(2).name, QStringLiteral("small"));
        QVERIFY(board.setLaneName(1, QString(), &error)); // no name: its device, numbered
        QCOMPARE(board.laneTitle(1), QStringLiteral("cpu 2"));
    }

    // A Slurm cluster and its lanes are read, kept and written back as given.
    // One rule for every local path of a file (docs/experiment-format.md#paths):
    // relative to the file's folder, whatever the current directory, so the
    // worker (in its run folder) gets absolute paths; read through every
    // key that holds one, rounds and sweeps included.
    void localPathsResolveAgainstTheFilesFolder()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("exp")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("elsewhere")));
        const QString folder = dir.filePath(QStringLiteral("exp"));
        const QString path = folder + QStringLiteral("/e.json");
        QVERIFY(writeFile(path, R"({"name":"e","runs_root":"runs",
            "clusters":[{"name":"far","reach":"ssh","host":"h","ssh_config":"ssh/config",
                         "runs_root":"/r","worker":"/w"}],
            "hosts":[{"name":"box","host":"h","ssh_config":"../ssh/box","runs_root":"/r","worker":"/w"}],
            "lanes":[{"device":"cpu","runs":[
              {"name":"kg","model":{"type":"transe"},"data":{"kind":"kg","path":"data/kg"},
               "train":{"init_from":"ck/start.pt"}},
              {"name":"ts","model":{"type":"torchscript","path":"./net.pt"},"data":{"kind":"idx","path":"/abs/idx"}},
              {"name":"after","model":{"type":"transe"},"data":{"kind":"kg","path":"~/kg"},"after":["kg"],
               "train":{"init_from":"{after.kg.checkpoint}"}},
              {"name":"p","program":{"argv":["python3","train.py","--data","shards"],"cwd":"."}},
              {"rounds":{"name":"fed","count":1,"clients":[{"name":"c","program":{"argv":["python3","c.py"],"cwd":"fed"}}],
                         "aggregate":{"name":"a","program":{"argv":["python3","a.py"],"cwd":"fed"}}}}]}],
            "sweeps":[{"name":"s","base":{"model":{"type":"transe"},"data":{"kind":"kg","path":"data/kg"}},
                       "space":{"data.path":{"values":["a","/b"]}},"method":"grid",
                       "objective":{"metric":"valid/mrr","mode":"max"}}]})"));
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.filePath(QStringLiteral("elsewhere"))));
        QStringList errors;
        const auto ex = Experiment::load(QStringLiteral("../exp/e.json"), &errors);
        QDir::setCurrent(before);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        const auto at = [&](const QString &name) { return folder + QLatin1Char('/') + name; };
        const auto key = [](const QJsonObject &spec, const char *section, const char *name) {
            return spec.value(QLatin1String(section)).toObject().value(QLatin1String(name)).toString();
        };
        QCOMPARE(ex->runsRoot, at(QStringLiteral("runs")));
        QCOMPARE(ex->effectiveRunsRoot(), at(QStringLiteral("runs")));
        QCOMPARE(ex->cluster(QStringLiteral("far"))->sshConfig, at(QStringLiteral("ssh/config")));
        QCOMPARE(ex->host(QStringLiteral("box"))->ssh.sshConfig, dir.filePath(QStringLiteral("ssh/box")));
        const QList<ExperimentRun> &runs = ex->lanes.at(0).runs;
        QCOMPARE(key(runs.at(0).spec, "data", "path"), at(QStringLiteral("data/kg")));
        QCOMPARE(key(runs.at(0).spec, "train", "init_from"), at(QStringLiteral("ck/start.pt")));
        QCOMPARE(key(runs.at(1).spec, "model", "path"), at(QStringLiteral("net.pt")));
        QCOMPARE(key(runs.at(1).spec, "data", "path"), QStringLiteral("/abs/idx"));
        QCOMPARE(key(runs.at(2).spec, "data", "path"), QDir::homePath() + QStringLiteral("/kg"));
        QCOMPARE(key(runs.at(2).spec, "train", "init_from"), QStringLiteral("{after.kg.checkpoint}"));
        QCOMPARE(RunSpecView(runs.at(3).spec).programCwd(), folder);
        // A program's arguments are its own: read in its cwd, never rewritten.
        QCOMPARE(RunSpecView(runs.at(3).spec).programArgv(),
                 (QStringList{QStringLiteral("python3"), QStringLiteral("train.py"), QStringLiteral("--data"),
                              QStringLiteral("shards")}));
        QCOMPARE(RunSpecView(runs.at(4).spec).programCwd(), at(QStringLiteral("fed")));
        QCOMPARE(RunSpecView(runs.at(5).spec).programCwd(), at(QStringLiteral("fed")));
        const SweepSpec &sweep = ex->sweeps.at(0);
        QCOMPARE(key(sweep.base, "data", "path"), at(QStringLiteral("data/kg")));
        QCOMPARE(sweep.toJson().value(QStringLiteral("space")).toObject().value(QStringLiteral("data.path")),
                 QJsonValue(QJsonObject{
                     {QStringLiteral("values"), QJsonArray{at(QStringLiteral("a")), QStringLiteral("/b")}}}));
    }

    // A run on an ssh host or a Slurm cluster reads its paths there: kept
    // as written, and a relative one, which would mean nothing there, is
    // named as a problem.
    void remoteLanesKeepTheirPaths()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("e.json"));
        const QByteArray head = R"({"name":"e","hosts":[{"name":"box","host":"h","runs_root":"/r","worker":"/w"}],
            "clusters":[{"name":"hpc","reach":"local"}],"lanes":[)";
        QVERIFY(writeFile(path, head + R"({"device":"ssh:box/cpu","runs":[
            {"name":"a","model":{"type":"transe"},"data":{"kind":"kg","path":"/data/kg"}},
            {"name":"p","program":{"argv":["python3","t.py"],"cwd":"/home/me/code"}}]}]})"));
        QStringList errors;
        const auto ex = Experiment::load(path, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->lanes.at(0).runs.at(0).spec.value(QStringLiteral("data")).toObject().value(QStringLiteral("path")),
                 QJsonValue(QStringLiteral("/data/kg")));
        QCOMPARE(RunSpecView(ex->lanes.at(0).runs.at(1).spec).programCwd(), QStringLiteral("/home/me/code"));

        QVERIFY(writeFile(path, head + R"({"device":"ssh:box/cpu","runs":[
            {"name":"a","model":{"type":"transe"},"data":{"kind":"kg","path":"data"}}]},
            {"device":"slurm:hpc","runs":[{"name":"p","program":{"argv":["python3","t.py"],"cwd":"."}}]}]})"));
        QVERIFY(!Experiment::load(path, &errors));
        QCOMPARE(errors,
                 (QStringList{
                     path
                         + QStringLiteral(": lanes[0].runs[0].data.path: expected an absolute path on "
                                          "ssh:box (a run there takes its paths as they are there), got \"data\""),
                     path
                         + QStringLiteral(": lanes[1].runs[0].program.cwd: expected an absolute path on "
                                          "slurm:hpc (a run there takes its paths as they are there), got \".\"")}));

        // A sweep with a lane there reads its paths there too.
        QVERIFY(writeFile(path, head + R"({"device":"cpu","runs":[]},{"device":"ssh:box/cpu","runs":[]}],
            "sweeps":[{"name":"s","base":{"model":{"type":"transe"},"data":{"kind":"kg","path":"data"}},
                       "space":{"train.lr":{"values":[0.1]}},"method":"grid","lanes":[0,1],
                       "objective":{"metric":"valid/mrr","mode":"max"}}]})"));
        QVERIFY(!Experiment::load(path, &errors));
        QCOMPARE(errors.value(0),
                 path
                     + QStringLiteral(": sweeps[0].base.data.path: expected an absolute path on "
                                      "ssh:box (a run there takes its paths as they are there), got \"data\""));
    }

    // Saving writes a path as its author wrote it where that still names
    // the same file from the folder saved to, else absolute: a copy saved
    // elsewhere opens on the same files.
    void savingKeepsWhatThePathsName()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("a")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("b")));
        const QString path = dir.filePath(QStringLiteral("a/e.json"));
        QVERIFY(writeFile(path, R"({"name":"e","runs_root":"runs","lanes":[{"device":"cpu","runs":[
            {"name":"kg","model":{"type":"transe"},"data":{"kind":"kg","path":"data"}},
            {"name":"p","program":{"argv":["python3","t.py"],"cwd":"/opt/code"}}]}]})"));
        QStringList errors;
        const auto ex = Experiment::load(path, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        const auto written = [](const QString &file) {
            QFile f(file);
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
        };
        const auto dataPath = [](const QJsonObject &top) {
            return top
                .value(QStringLiteral(
                    "lanes"))[0][QStringLiteral("runs")][0][QStringLiteral("data")][QStringLiteral("path")]
                .toString();
        };
        QString error;
        QVERIFY2(ex->save(path, &error), qPrintable(error)); // where it was: as written
        QCOMPARE(written(path).value(QStringLiteral("runs_root")).toString(), QStringLiteral("runs"));
        QCOMPARE(dataPath(written(path)), QStringLiteral("data"));

        const QString copy = dir.filePath(QStringLiteral("b/e.json"));
        QVERIFY2(ex->save(copy, &error), qPrintable(error)); // elsewhere: the same files
        QCOMPARE(written(copy).value(QStringLiteral("runs_root")).toString(), dir.filePath(QStringLiteral("a/runs")));
        QCOMPARE(dataPath(written(copy)), dir.filePath(QStringLiteral("a/data")));
        const auto reopened = Experiment::load(copy, &errors);
        QVERIFY2(reopened, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(reopened->toJson(), ex->toJson());
    }

    void clustersAndSlurmLanes()
    {
        const QByteArray json = R"({"name":"e","clusters":[
            {"name":"hpc","reach":"local","runs_root":"/shared/runs","worker":"/shared/bin/trainyard-worker",
             "sbatch":{"partition":"gpu","account":"lab","qos":"normal","time":"4:00:00",
                       "extra_args":["--constraint=a100","--mem=32G"]}},
            {"name":"far","reach":"ssh","host":"login.example.org","user":"me","port":2222,
             "runs_root":"/home/me/runs","worker":"/home/me/bin/trainyard-worker"}],
            "lanes":[{"device":"slurm:hpc/gpu","gres":"gpu:a100:2","slots":8,"runs":[]},
                     {"device":"slurm:far","runs":[]},{"device":"cpu","runs":[]}]})";
        QStringList errors;
        const auto ex = Experiment::fromJson(QJsonDocument::fromJson(json).object(), &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->clusters.size(), 2);
        const ExperimentCluster *hpc = ex->cluster(QStringLiteral("hpc"));
        QVERIFY(hpc);
        QCOMPARE(hpc->reach, QStringLiteral("local"));
        QCOMPARE(hpc->runsRoot, QStringLiteral("/shared/runs"));
        QCOMPARE(hpc->partition, QStringLiteral("gpu"));
        QCOMPARE(hpc->account, QStringLiteral("lab"));
        QCOMPARE(hpc->qos, QStringLiteral("normal"));
        QCOMPARE(hpc->time, QStringLiteral("4:00:00"));
        QCOMPARE(hpc->extraArgs, (QStringList{QStringLiteral("--constraint=a100"), QStringLiteral("--mem=32G")}));
        const ExperimentCluster *far = ex->cluster(QStringLiteral("far"));
        QVERIFY(far);
        QCOMPARE(far->reach, QStringLiteral("ssh"));
        QCOMPARE(far->host, QStringLiteral("login.example.org"));
        QCOMPARE(far->user, QStringLiteral("me"));
        QCOMPARE(far->port, 2222);
        QCOMPARE(ex->lanes.at(0).device.toString(), QStringLiteral("slurm:hpc/gpu"));
        QCOMPARE(ex->lanes.at(0).gres, QStringLiteral("gpu:a100:2"));
        QCOMPARE(ex->lanes.at(0).slotCount, 8);
        const Device farLane = ex->lanes.at(1).device;
        QVERIFY(farLane.isSlurm());
        QCOMPARE(farLane.cluster(), QStringLiteral("far"));
        QCOMPARE(farLane.partition(), QString());

        const auto back = Experiment::fromJson(ex->toJson(), &errors);
        QVERIFY2(back, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(back->toJson(), ex->toJson());
        QCOMPARE(back->toJson().value(QStringLiteral("clusters")),
                 QJsonDocument::fromJson(json).object().value(QStringLiteral("clusters")));
    }

    // Hosts over ssh (docs/remote.md): read, written back as they came,
    // their lanes' devices understood by Device, every problem named by its
    // JSON path, no value that ssh could read as an option, and every
    // command they make run listed for the trust list.
    void hostsAndSshLanes()
    {
        const QByteArray json = R"({"name":"e","hosts":[
            {"name":"lab","host":"gpu1.lab.example","user":"me","port":2222,"ssh_config":"/home/me/.ssh/lab",
             "runs_root":"/scratch/me/runs","worker":"/opt/ty/bin/trainyard-worker","python":"/usr/bin/python3",
             "poll_seconds":5},
            {"name":"box","host":"10.0.0.7","runs_root":"/data/runs","worker":"/usr/bin/trainyard-worker"}],
            "lanes":[{"device":"ssh:lab/cuda:3","slots":2,"runs":[]},{"device":"ssh:box/cpu","runs":[]}]})";
        QStringList errors;
        const auto ex = Experiment::fromJson(QJsonDocument::fromJson(json).object(), &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->hosts.size(), 2);
        const ExperimentHost *lab = ex->host(QStringLiteral("lab"));
        QVERIFY(lab);
        QCOMPARE(lab->ssh.host, QStringLiteral("gpu1.lab.example"));
        QCOMPARE(lab->ssh.port, 2222);
        QCOMPARE(lab->pollSeconds, 5);
        QCOMPARE(ex->host(QStringLiteral("box"))->pollSeconds, 2);
        const Device gpu = ex->lanes.at(0).device;
        QVERIFY(gpu.isRemote() && gpu.remoteIsCuda() && !gpu.isLocal() && !gpu.isCuda());
        QCOMPARE(gpu.host(), QStringLiteral("lab"));
        QCOMPARE(gpu.cudaIndex(), 3);
        QCOMPARE(gpu.remoteDevice(), QStringLiteral("cuda:3"));
        const Device cpu = ex->lanes.at(1).device;
        QVERIFY(cpu.isRemote() && !cpu.remoteIsCuda() && !cpu.isCpu());
        QCOMPARE(cpu.remoteDevice(), QStringLiteral("cpu"));
        QCOMPARE(Device::remote(QStringLiteral("lab"), 3).toString(), QStringLiteral("ssh:lab/cuda:3"));
        QCOMPARE(Device::remote(QStringLiteral("box"), -1).toString(), QStringLiteral("ssh:box/cpu"));
        // Names that could be read as options, or hold anything but a name, are no device.
        for (const char *bad : {"ssh:-oProxyCommand=x/cuda:0", "ssh:lab/cuda:01", "ssh:lab", "ssh:lab/gpu0",
                                "ssh:lab/cuda:0/x", "ssh:.lab/cpu", "ssh:la b/cpu", "ssh:/cpu"}) {
            QVERIFY2(!Device::parse(QString::fromLatin1(bad)).isValid(), bad);
        }

        const auto back = Experiment::fromJson(ex->toJson(), &errors);
        QVERIFY2(back, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(back->toJson().value(QStringLiteral("hosts")),
                 QJsonDocument::fromJson(json).object().value(QStringLiteral("hosts")));

        // ssh with its config, the worker and the Python there: trusted first.
        const QStringList lines = ex->commandLines();
        QVERIFY2(lines.contains(QStringLiteral("(host lab, every command there) ssh -p 2222 -F /home/me/.ssh/lab "
                                               "-l me -- gpu1.lab.example")),
                 qPrintable(lines.join(QLatin1Char('\n'))));
        QVERIFY(lines.contains(QStringLiteral("(host lab, every worker run there) /opt/ty/bin/trainyard-worker")));
        QVERIFY(lines.contains(QStringLiteral("(host lab, every Python program run there) /usr/bin/python3")));
        QVERIFY(lines.contains(QStringLiteral("(host box, every command there) ssh -- 10.0.0.7")));

        const auto problems = [](const QByteArray &text) {
            QStringList errors;
            Experiment::fromJson(QJsonDocument::fromJson(text).object(), &errors);
            return errors.join(QLatin1Char('\n'));
        };
        const QString base = QStringLiteral(R"("runs_root":"/r","worker":"/w")");
        const auto hostFile = [&](const QString &host, const QString &lanes = QStringLiteral("[]")) {
            return QStringLiteral(R"({"name":"e","hosts":[%1],"lanes":%2})").arg(host, lanes).toUtf8();
        };
        QString p = problems(hostFile(QStringLiteral(R"({"name":"lab","host":"-oProxyCommand=evil",%1})").arg(base)));
        QVERIFY2(p.contains(QStringLiteral("hosts[0].host: expected a host name, address or ssh config alias")),
                 qPrintable(p));
        p = problems(
            hostFile(QStringLiteral(R"({"name":"lab","host":"h","user":"-l","runs_root":"/r","worker":"/w"})")));
        QVERIFY2(p.contains(QStringLiteral("hosts[0].user: expected a user name")), qPrintable(p));
        p = problems(hostFile(QStringLiteral(R"({"name":"lab","host":"h","worker":"/w"})")));
        QVERIFY2(
            p.contains(QStringLiteral("hosts[0].runs_root: expected an absolute folder path on the host, got nothing")),
            qPrintable(p));
        p = problems(hostFile(QStringLiteral(R"({"name":"lab","host":"h","runs_root":"runs","worker":"/w"})")));
        QVERIFY2(p.contains(
                     QStringLiteral("hosts[0].runs_root: expected an absolute folder path on the host, got \"runs\"")),
                 qPrintable(p));
        p = problems(hostFile(QStringLiteral(R"({"name":"lab","host":"h","runs_root":"/r"})")));
        QVERIFY2(
            p.contains(QStringLiteral("hosts[0].worker: expected an absolute path to trainyard-worker on the host")),
            qPrintable(p));
        p = problems(hostFile(QStringLiteral(R"({"name":"-x","host":"h",%1})").arg(base)));
        QVERIFY2(p.contains(QStringLiteral("hosts[0].name: expected a host name for lanes")), qPrintable(p));
        p = problems(hostFile(QStringLiteral(R"({"name":"lab","host":"h","port":0,"sshconfig":"/c",%1})").arg(base)));
        QVERIFY2(p.contains(QStringLiteral("hosts[0].port: expected an integer")), qPrintable(p));
        QVERIFY2(p.contains(QStringLiteral("hosts[0]: unknown key \"sshconfig\"")), qPrintable(p));
        p = problems(
            hostFile(QStringLiteral(R"({"name":"lab","host":"h",%1},{"name":"lab","host":"g",%1})").arg(base)));
        QVERIFY2(p.contains(QStringLiteral("hosts[1].name: host \"lab\" is already defined")), qPrintable(p));
        p = problems(hostFile(QStringLiteral(R"({"name":"lab","host":"h",%1})").arg(base),
                              QStringLiteral(R"([{"device":"ssh:other/cuda:0"}])")));
        QVERIFY2(p.contains(QStringLiteral("lanes[0].device: no host \"other\" in hosts (expected one of lab)")),
                 qPrintable(p));
    }

    void demoIsTheSeedsExperiment()
    {
        const Experiment demo = Experiment::demo();
        QCOMPARE(demo.name, QStringLiteral("demo"));
        QCOMPARE(demo.lanes.size(), 4);
        QCOMPARE(demo.runCount(), 10);
        const QStringList devices{QStringLiteral("cuda:0"), QStringLiteral("cuda:1"), QStringLiteral("cuda:2"),
                                  QStringLiteral("cuda:3")};
        const QStringList types{QStringLiteral("transe"), QStringLiteral("transh"), QStringLiteral("sacn"),
                                QStringLiteral("mnist-cnn")};
        const QList<int> repeats{2, 3, 4, 1};
        for (int l = 0; l < 4; ++l) {
            QCOMPARE(demo.lanes.at(l).device.toString(), devices.at(l));
            QCOMPARE(demo.lanes.at(l).runs.size(), 1);
            QCOMPARE(demo.lanes.at(l).runs.at(0).repeat, repeats.at(l));
            QCOMPARE(demo.lanes.at(l)
                         .runs.at(0)
                         .spec.value(QStringLiteral("model"))
                         .toObject()
                         .value(QStringLiteral("type"))
                         .toString(),
                     types.at(l));
        }
        // Generated data and Fashion-MNIST: nothing to download.
        QCOMPARE(demo.lanes.at(3)
                     .runs.at(0)
                     .spec.value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("kind"))
                     .toString(),
                 QStringLiteral("idx"));
        QVERIFY(demo.effectiveRunsRoot().endsWith(QStringLiteral("/demo")));
    }

    // The demo's KG runs finished in under a second: they train for a time
    // budget (about a minute a lane); the tests that train the demo cap its
    // steps with TRAINYARD_DEMO_MAX_STEPS.
    void demoTrainsForAMinuteUnlessCapped()
    {
        const auto kgBudgets = [](const Experiment &demo) {
            double seconds = 0;
            for (const ExperimentLane &lane : demo.lanes) {
                const QJsonObject train = lane.runs.at(0).spec.value(QLatin1String("train")).toObject();
                if (lane.runs.at(0).spec.value(QLatin1String("data")).toObject().value(QLatin1String("kind"))
                    == QLatin1String("synthetic-kg")) {
                    seconds = std::max(seconds,
                                       train.value(QLatin1String("max_seconds")).toDouble() * lane.runs.at(0).repeat);
                }
            }
            return seconds;
        };
        QVERIFY(qEnvironmentVariableIsEmpty("TRAINYARD_DEMO_MAX_STEPS"));
        const double longest = kgBudgets(Experiment::demo());
        QVERIFY2(longest >= 45 && longest <= 75, qPrintable(QString::number(longest)));
        qputenv("TRAINYARD_DEMO_MAX_STEPS", "100");
        const auto unset = qScopeGuard([] { qunsetenv("TRAINYARD_DEMO_MAX_STEPS"); });
        for (const ExperimentLane &lane : Experiment::demo().lanes) {
            const QJsonObject train = lane.runs.at(0).spec.value(QLatin1String("train")).toObject();
            QVERIFY(train.value(QLatin1String("max_steps")).toInt() >= 1);
            QVERIFY(train.value(QLatin1String("max_steps")).toInt() <= 100);
        }
    }

    void runNamesCannotLeaveTheRoot()
    {
        QVERIFY(isSafeRunName(QStringLiteral("transe-1")));
        QVERIFY(isSafeRunName(QStringLiteral("a.b_c+d@e")));
        for (const char *bad : {"", ".", "..", "../x", "a/b", ".hidden", "a b", "a\\b"}) {
            QVERIFY2(!isSafeRunName(QString::fromLatin1(bad)), bad);
        }
        QVERIFY(!isSafeRunName(QString(101, QLatin1Char('a'))));
    }
};

QTEST_GUILESS_MAIN(TestExperiment)
#include "tst_experiment.moc"
