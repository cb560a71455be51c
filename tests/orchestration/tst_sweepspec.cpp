// Sweeps of the experiment file (docs/experiment-format.md#sweeps): every
// refused case with its message and JSON path, the grid's order and size,
// the random sampler's reproducible values (fixed expected values, so a
// change of generator is caught), trial specs, the round trip through an
// Experiment, and what a program sweep adds to the trust list.

#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/runspec/runspecview.h"
#include "testcatalogue.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace trainyard;
using namespace trainyard::test;

namespace {

const QByteArray kBase = R"("base": {"model": {"type": "transe"}, "data": {"kind": "synthetic-kg"}})";
const QByteArray kObjective = R"("objective": {"metric": "valid/mrr", "mode": "max"})";

// An experiment of two CPU lanes (the first holding `runs`) and `sweeps`.
QByteArray file(const QByteArray &sweeps, const QByteArray &runs = QByteArray())
{
    return R"({"name": "e", "lanes": [{"device": "cpu", "runs": [)" + runs + R"(]}, {"device": "cpu"}], "sweeps": [)"
           + sweeps + "]}";
}

// A worker sweep named "lr" with `rest` (its space and anything else).
QByteArray sweep(const QByteArray &rest)
{
    return R"({"name": "lr", )" + kBase + ", " + kObjective + ", " + rest + "}";
}

std::optional<Experiment> load(const QByteArray &json, QStringList *errors,
                               const ModelCatalogue *catalogue = &validationCatalogue(), Experiment *partial = nullptr)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        qFatal("test JSON: %s in %s", qPrintable(parseError.errorString()), json.constData());
    }
    return Experiment::fromJson(doc.object(), errors, catalogue, partial);
}

QStringList errorsOf(const QByteArray &json, const ModelCatalogue *catalogue = &validationCatalogue())
{
    QStringList errors;
    if (load(json, &errors, catalogue)) {
        return {};
    }
    return errors;
}

SweepSpec loaded(const QByteArray &sweepJson)
{
    QStringList errors;
    const auto ex = load(file(sweepJson), &errors);
    if (!ex || ex->sweeps.size() != 1) {
        qFatal("sweep refused: %s", qPrintable(errors.join(QLatin1Char('\n'))));
    }
    return ex->sweeps.first();
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

} // namespace

class TestSweepSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Each bad sweep is refused with exactly this problem (and only it).
    void refused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        const QByteArray dims = R"("space": {"model.dim": {"values": [50, 100]}})";
        QTest::newRow("unknown sweep key")
            << file(sweep(dims + R"(, "bogus": 1)"))
            << "sweeps[0]: unknown key \"bogus\" (expected one of name, base, space, method, trials, seed, max_grid, "
               "lanes, objective, early_stopping)";
        QTest::newRow("unknown parameter key")
            << file(sweep(R"("space": {"train.lr": {"values": [0.1], "lo": 1}})"))
            << "sweeps[0].space.train.lr: unknown key \"lo\" (expected one of values, range, step, uniform, "
               "log_uniform, int, fixed)";
        QTest::newRow("no kind") << file(sweep(R"("space": {"train.lr": {"int": true}})"))
                                 << "sweeps[0].space.train.lr: expected one of \"values\", \"range\", \"uniform\", "
                                    "\"log_uniform\" or \"fixed\"";
        QTest::newRow("two kinds") << file(sweep(R"("space": {"train.lr": {"values": [0.1], "fixed": 0.2}})"))
                                   << "sweeps[0].space.train.lr: \"fixed\" and \"values\" cannot go together (one kind "
                                      "per key)";
        QTest::newRow("parameter not an object")
            << file(sweep(R"("space": {"train.lr": 0.1})"))
            << "sweeps[0].space.train.lr: expected an object such as {\"values\": [...]}, {\"range\": [lo, hi], "
               "\"step\": s}, {\"uniform\": [lo, hi]}, {\"log_uniform\": [lo, hi]} or {\"fixed\": v}, got 0.1";
        QTest::newRow("empty values") << file(sweep(R"("space": {"model.dim": {"values": []}})"))
                                      << "sweeps[0].space.model.dim.values: empty (expected at least one value)";
        QTest::newRow("value twice") << file(sweep(R"("space": {"model.dim": {"values": [50, 100, 50]}})"))
                                     << "sweeps[0].space.model.dim.values[2]: 50 is listed twice";
        QTest::newRow("log range at 0")
            << file(sweep(R"("method": "random", "trials": 3, "space": {"train.lr": {"log_uniform": [0, 0.1]}})"))
            << "sweeps[0].space.train.lr.log_uniform: a log range must stay above 0, got [0, 0.1]";
        QTest::newRow("log range below 0")
            << file(sweep(R"("method": "random", "trials": 3, "space": {"train.lr": {"log_uniform": [-1, 0.1]}})"))
            << "sweeps[0].space.train.lr.log_uniform: a log range must stay above 0, got [-1, 0.1]";
        QTest::newRow("range low above high") << file(sweep(R"("space": {"model.dim": {"range": [9, 1]}})"))
                                              << "sweeps[0].space.model.dim.range: low 9 is above high 1";
        QTest::newRow("uniform low above high")
            << file(sweep(R"("method": "random", "trials": 3, "space": {"train.lr": {"uniform": [0.1, 0.01]}})"))
            << "sweeps[0].space.train.lr.uniform: low 0.1 is above high 0.01";
        QTest::newRow("bounds not numbers")
            << file(sweep(R"("space": {"model.dim": {"range": [1]}})"))
            << "sweeps[0].space.model.dim.range: expected [low, high] (two numbers), got an array";
        QTest::newRow("step 0") << file(sweep(R"("space": {"model.dim": {"range": [1, 9], "step": 0}})"))
                                << "sweeps[0].space.model.dim.step: expected a number > 0, got 0";
        QTest::newRow("step below 0") << file(sweep(R"("space": {"model.dim": {"range": [1, 9], "step": -2}})"))
                                      << "sweeps[0].space.model.dim.step: expected a number > 0, got -2";
        QTest::newRow("step without range") << file(sweep(R"("space": {"model.dim": {"values": [1], "step": 2}})"))
                                            << "sweeps[0].space.model.dim.step: only for \"range\"";
        QTest::newRow("int on values")
            << file(sweep(R"("space": {"model.dim": {"values": [1], "int": true}})"))
            << "sweeps[0].space.model.dim.int: only for \"range\", \"uniform\" and \"log_uniform\" (values keep the "
               "types they are written in)";
        QTest::newRow("int with fractional bounds")
            << file(sweep(
                   R"("method": "random", "trials": 2, "space": {"model.dim": {"uniform": [1.5, 9], "int": true}})"))
            << "sweeps[0].space.model.dim.uniform: \"int\": true needs integer bounds, got [1.5, 9]";
        QTest::newRow("float draws for an int key")
            << file(sweep(R"("method": "random", "trials": 2, "space": {"model.dim": {"uniform": [16, 512]}})"))
            << "sweeps[0].space.model.dim: model.dim takes integers: add \"int\": true";
        QTest::newRow("grid of uniform")
            << file(sweep(R"("space": {"train.lr": {"log_uniform": [0.0001, 0.1]}})"))
            << "sweeps[0].space.train.lr: a grid cannot enumerate \"log_uniform\" (use \"values\" or \"range\", or "
               "\"method\": \"random\")";
        QTest::newRow("grid too large")
            << file(sweep(
                   R"("max_grid": 50, "space": {"model.dim": {"range": [1, 100]}, "model.norm": {"values": [1, 2]}})"))
            << "sweeps[0].space: the grid has 200 configurations (100 × 2), more than max_grid 50 (raise max_grid, or "
               "use \"method\": \"random\")";
        QTest::newRow("grid over the default max_grid")
            << file(sweep(R"("space": {"model.dim": {"range": [1, 1001]}})"))
            << "sweeps[0].space: the grid has 1001 configurations (1001), more than max_grid 1000 (raise max_grid, or "
               "use \"method\": \"random\")";
        QTest::newRow("empty space") << file(sweep(R"("space": {})"))
                                     << "sweeps[0].space: no key is swept yet (add one, such as {\"train.lr\": "
                                        "{\"values\": [0.01, 0.001]}})";
        QTest::newRow("method") << file(sweep(dims + R"(, "method": "bayes")"))
                                << "sweeps[0].method: expected \"grid\" or \"random\", got \"bayes\"";
        QTest::newRow("random without trials")
            << file(sweep(dims + R"(, "method": "random")"))
            << "sweeps[0].trials: missing (\"random\" needs a number of trials, 1 to 10000)";
        QTest::newRow("random with 0 trials") << file(sweep(dims + R"(, "method": "random", "trials": 0)"))
                                              << "sweeps[0].trials: expected an integer from 1 to 10000, got 0";
        QTest::newRow("seed") << file(sweep(dims + R"(, "seed": -1)"))
                              << "sweeps[0].seed: expected an integer ≥ 0, got -1";
        QTest::newRow("lane that does not exist")
            << file(sweep(dims + R"(, "lanes": [0, 5])"))
            << "sweeps[0].lanes[1]: no lane 5 (the experiment has 2 lanes: 0 to 1)";
        QTest::newRow("lane twice") << file(sweep(dims + R"(, "lanes": [1, 1])"))
                                    << "sweeps[0].lanes[1]: lane 1 is listed twice";
        QTest::newRow("no lanes listed")
            << file(sweep(dims + R"(, "lanes": [])"))
            << "sweeps[0].lanes: expected a non-empty array of lane indices (leave \"lanes\" out for every lane), got "
               "an array";
        QTest::newRow("asha min above max")
            << file(sweep(dims + R"(, "early_stopping": {"rule": "asha", "min": 200, "max": 100})"))
            << "sweeps[0].early_stopping.min: 200 is above max 100";
        QTest::newRow("asha eta 1") << file(
            sweep(dims + R"(, "early_stopping": {"rule": "asha", "max": 100, "eta": 1})"))
                                    << "sweeps[0].early_stopping.eta: expected a number > 1, got 1";
        QTest::newRow("asha eta below 1")
            << file(sweep(dims + R"(, "early_stopping": {"rule": "asha", "max": 100, "eta": 0.5})"))
            << "sweeps[0].early_stopping.eta: expected a number > 1, got 0.5";
        QTest::newRow("endless ladder")
            << file(sweep(dims + R"(, "early_stopping": {"rule": "asha", "min": 1e-300, "max": 1e300, "eta": 1.0001})"))
            << "sweeps[0].early_stopping: min 1e-300, max 1e+300 and eta 1.0001 make more than 100 rungs";
        QTest::newRow("resource") << file(
            sweep(dims + R"(, "early_stopping": {"rule": "asha", "max": 100, "resource": "time"})"))
                                  << "sweeps[0].early_stopping.resource: expected \"epoch\" or \"step\", got \"time\"";
        QTest::newRow("rule") << file(sweep(dims + R"(, "early_stopping": {"rule": "hyperband", "max": 100})"))
                              << "sweeps[0].early_stopping.rule: expected \"asha\" or \"median\", got \"hyperband\"";
        QTest::newRow("no max") << file(sweep(dims + R"(, "early_stopping": {"rule": "asha"})"))
                                << "sweeps[0].early_stopping.max: missing (expected the epoch the trials train up to)";
        QTest::newRow("eta with the median rule")
            << file(sweep(dims + R"(, "early_stopping": {"rule": "median", "max": 10, "eta": 3})"))
            << "sweeps[0].early_stopping: unknown key \"eta\" (expected one of rule, resource, min, max)";
        QTest::newRow("name taken by a run") << file(sweep(dims), R"({"name": "lr", "model": {"type": "transe"}})")
                                             << "sweeps[0].name: \"lr\" is already used by lanes[0].runs[0]";
        QTest::newRow("trial named like a run")
            << file(sweep(dims), R"({"name": "lr-2", "model": {"type": "transe"}})")
            << "sweeps[0].name: its trial \"lr-2\" has the name of lanes[0].runs[0]";
        QTest::newRow("trial named like a repeat")
            << file(sweep(dims), R"({"name": "lr", "model": {"type": "transe"}, "repeat": 2})")
            << "sweeps[0].name: its trial \"lr-1\" has the name of lanes[0].runs[0]";
        QTest::newRow("name taken by a sweep")
            << file(sweep(dims) + ", " + sweep(dims)) << "sweeps[1].name: \"lr\" is already used by sweeps[0]";
        QTest::newRow("sweep named like a trial of another")
            << file(sweep(dims) + R"(, {"name": "lr-2", )" + kBase + ", " + kObjective + ", " + dims + "}")
            << "sweeps[1].name: \"lr-2\" is already used by sweeps[0]";
        QTest::newRow("unsafe name")
            << file(R"({"name": "../x", )" + kBase + ", " + kObjective + ", " + dims + "}")
            << "sweeps[0].name: expected a name of 1–100 letters, digits or ._+@- not starting with '.' nor ending in "
               ".attempt-N, got \"../x\"";
        QTest::newRow("no name") << file("{" + kBase + ", " + kObjective + ", " + dims + "}")
                                 << "sweeps[0].name: expected a name of 1–100 letters, digits or ._+@- not starting "
                                    "with '.' nor ending in .attempt-N, got nothing";
        QTest::newRow("trial names too long")
            << file(R"({"name": ")" + QByteArray(99, 'a') + R"(", )" + kBase + ", " + kObjective + ", " + dims + "}")
            << "sweeps[0].name: expected a name of 1–100 letters, digits or ._+@- not starting with '.' nor ending in "
               ".attempt-N for every trial, got \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…\"";
        QTest::newRow("base key") << file(R"({"name": "lr", "base": {"model": {"type": "transe", "dimm": 1}}, )"
                                          + kObjective + ", " + dims + "}")
                                  << "sweeps[0].base.model.dimm: unknown key (expected one of type, dim, norm)";
        QTest::newRow("base repeat")
            << file(R"({"name": "lr", "base": {"model": {"type": "transe"}, "repeat": 2}, )" + kObjective + ", " + dims
                    + "}")
            << "sweeps[0].base: unknown key \"repeat\" (expected one of name, model, data, train, eval, checkpoint, "
               "report, resources)";
        QTest::newRow("base name")
            << file(R"({"name": "lr", "base": {"name": "b", "model": {"type": "transe"}}, )" + kObjective + ", " + dims
                    + "}")
            << "sweeps[0].base.name: a sweep names its trials (\"<sweep>-1\", \"<sweep>-2\", ...); name the sweep "
               "instead";
        QTest::newRow("no base") << file(R"({"name": "lr", )" + kObjective + ", " + dims + "}")
                                 << "sweeps[0].base: missing (expected a run spec: a model and its data, or a program)";
        QTest::newRow("space key the worker does not read")
            << file(sweep(R"("space": {"model.dimm": {"values": [1]}})"))
            << "sweeps[0].space.model.dimm: unknown key (expected one of dim, norm)";
        QTest::newRow("space key of a section") << file(sweep(R"("space": {"train.lrr": {"values": [1]}})"))
                                                << "sweeps[0].space.train.lrr: unknown key (expected one of epochs, "
                                                   "max_steps, batch_size, optimizer, lr, seed)";
        QTest::newRow("space key of the data kind")
            << file(sweep(R"("space": {"data.entity": {"values": [10]}})"))
            << "sweeps[0].space.data.entity: unknown key (expected one of entities, relations, triples)";
        QTest::newRow("space key not in the spec")
            << file(sweep(R"("space": {"lr": {"values": [1]}})"))
            << "sweeps[0].space.lr: expected a key of the run spec such as train.lr or model.dim (one of model, data, "
               "train, eval, checkpoint, report, a dot and a key)";
        QTest::newRow("space: model type") << file(sweep(R"("space": {"model.type": {"values": ["transe", "x"]}})"))
                                           << "sweeps[0].space.model.type: not searchable: the base's model type is "
                                              "the sweep's (one sweep per model type)";
        QTest::newRow("space value the worker refuses")
            << file(sweep(R"("space": {"model.norm": {"values": [1, 3]}})"))
            << "sweeps[0].space.model.norm.values[1]: expected 1 or 2, got 3";
        QTest::newRow("space range the worker refuses")
            << file(sweep(R"("space": {"model.dim": {"range": [0, 8], "step": 4}})"))
            << "sweeps[0].space.model.dim.range[0]: expected an integer from 1 to 4096, got 0";
        QTest::newRow("space uniform the worker refuses")
            << file(sweep(R"("method": "random", "trials": 2, "space": {"train.lr": {"uniform": [0, 0.1]}})"))
            << "sweeps[0].space.train.lr.uniform[0]: expected a number > 0, got 0";
        QTest::newRow("program key of a worker sweep")
            << file(sweep(R"("space": {"program.argv": {"values": [["ls"]]}})"))
            << "sweeps[0].space.program.argv: not searchable: what a program runs is a command (give the value as "
               "config.<name> and write {name} in program.argv)";
        const QByteArray program = R"({"name": "p", "base": {"program": {"argv": ["python3", "t.py"]}}, )" + kObjective;
        QTest::newRow("program key of a program sweep")
            << file(program + R"(, "space": {"program.cwd": {"values": ["/tmp"]}}})")
            << "sweeps[0].space.program.cwd: not searchable: what a program runs is a command (give the value as "
               "config.<name> and write {name} in program.argv)";
        QTest::newRow("program env") << file(program + R"(, "space": {"program.env.X": {"values": ["1"]}}})")
                                     << "sweeps[0].space.program.env.X: not searchable: what a program runs is a "
                                        "command (give the value as config.<name> and write {name} in program.argv)";
        QTest::newRow("model key of a program sweep") << file(program + R"(, "space": {"model.dim": {"values": [1]}}})")
                                                      << "sweeps[0].space.model.dim: a program run takes its "
                                                         "parameters as config.<name> keys (a name of letters, "
                                                         "digits and _) and train.seed";
        QTest::newRow("config key that is no name")
            << file(program + R"(, "space": {"config.a-b": {"values": [1]}}})")
            << "sweeps[0].space.config.a-b: a program run takes its parameters as config.<name> keys (a name of "
               "letters, digits and _) and train.seed";
        QTest::newRow("program seed") << file(program + R"(, "space": {"train.seed": {"values": [1, 2.5]}}})")
                                      << "sweeps[0].space.train.seed.values[1]: expected an integer ≥ 0, got 2.5";
        QTest::newRow("no objective") << file(R"({"name": "lr", )" + kBase + ", " + dims + "}")
                                      << "sweeps[0].objective: missing (expected {\"metric\": \"valid/mrr\", \"mode\": "
                                         "\"max\"})";
        QTest::newRow("objective metric")
            << file(R"({"name": "lr", )" + kBase + R"(, "objective": {"metric": "mrr", "mode": "max"}, )" + dims + "}")
            << "sweeps[0].objective.metric: expected \"<split>/<metric>\" such as \"valid/mrr\", got \"mrr\"";
        QTest::newRow("objective of a split not evaluated")
            << file(R"({"name": "lr", )" + kBase + R"(, "objective": {"metric": "test/mrr", "mode": "max"}, )" + dims
                    + "}")
            << "sweeps[0].objective.metric: the trials evaluate the \"valid\" split (base.eval.split), so they never "
               "report \"test/mrr\"";
        QTest::newRow("objective mode") << file(
            R"({"name": "lr", )" + kBase + R"(, "objective": {"metric": "valid/mrr", "mode": "up"}, )" + dims + "}")
                                        << "sweeps[0].objective.mode: expected \"max\" or \"min\", got \"up\"";
        QTest::newRow("objective key") << file(
            R"({"name": "lr", )" + kBase + R"(, "objective": {"metric": "valid/mrr", "mode": "max", "goal": 1}, )"
            + dims + "}") << "sweeps[0].objective: unknown key \"goal\" (expected one of metric, mode)";
        QTest::newRow("sweeps not an array") << QByteArray(R"({"name": "e", "lanes": [], "sweeps": {}})")
                                             << "sweeps: expected an array of sweeps, got an object";
        QTest::newRow("sweep not an object") << file("3") << "sweeps[0]: expected a sweep object, got 3";
    }
    void refused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QCOMPARE(errorsOf(json), QStringList{message});
    }

    // Without a catalogue: what Trainyard itself relies on, keys of the
    // run spec's sections and integer seeds.
    void structural()
    {
        QCOMPARE(errorsOf(file(sweep(R"("space": {"model.dimm": {"values": [1]}})")), nullptr), QStringList());
        QCOMPARE(errorsOf(file(sweep(R"("space": {"dim": {"values": [1]}})")), nullptr),
                 QStringList{QStringLiteral("sweeps[0].space.dim: expected a key of the run spec such as train.lr or "
                                            "model.dim (one of model, data, train, eval, checkpoint, report, a dot and "
                                            "a key)")});
        QCOMPARE(errorsOf(file(sweep(R"("space": {"train.seed": {"values": [1, 2.5]}})")), nullptr),
                 QStringList{QStringLiteral("sweeps[0].space.train.seed.values[1]: expected an integer ≥ 0, got 2.5")});
        QCOMPARE(errorsOf(file(sweep(R"("space": {"model.type": {"values": ["a"]}})")), nullptr),
                 QStringList{QStringLiteral("sweeps[0].space.model.type: not searchable: the base's model type is the "
                                            "sweep's (one sweep per model type)")});
    }

    // A program sweep's values reach its argv ({name}): each is tried as
    // the trials would run it, and one its command must not take is refused
    // (what must not is programconfig's to say).
    void programValues()
    {
        const QStringList errors =
            errorsOf(file(R"({"name": "p", "base": {"program": {"argv": ["python3", "t.py", "{depth}"]}}, )"
                          + kObjective + R"(, "space": {"config.depth": {"values": [1, "-rf"]}}})"));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().startsWith(QLatin1String("sweeps[0].space.config.depth.values[1]: a trial with \"-rf\" "
                                                         "is refused: sweeps[0].base.program.argv[2]: ")),
                 qPrintable(errors.first()));
    }

    void accepted()
    {
        const QByteArray program = R"({"name": "p", "base": {"program": {"argv": ["python3", "t.py"]}}, )" + kObjective;
        for (const QByteArray &json :
             {file(sweep(R"("space": {"model.dim": {"values": [50, 100]}, "train.lr": {"fixed": 0.01}})")),
              file(sweep(R"("method": "random", "trials": 27, "seed": 1, "max_grid": 10, "lanes": [0, 1],
                            "space": {"train.lr": {"log_uniform": [0.0001, 0.1]}, "model.dim": {"values": [50, 100, 200]},
                                      "model.norm": {"fixed": 1}, "train.batch_size": {"log_uniform": [16, 512], "int": true}},
                            "early_stopping": {"rule": "asha", "resource": "epoch", "min": 1, "max": 100, "eta": 3})")),
              file(sweep(R"("space": {"model.dim": {"range": [50, 200], "step": 50}},
                            "early_stopping": {"rule": "median", "resource": "step", "min": 100, "max": 1000})")),
              file(program + R"(, "space": {"config.depth": {"values": [1, 2]}, "train.seed": {"values": [1, 2]}}})"),
              file(sweep(R"("space": {"model.dim": {"values": [50]}})"),
                   R"({"name": "lr-x", "model": {"type": "x"}})")}) {
            QCOMPARE(errorsOf(json), QStringList());
        }
    }

    // Keys in name order, the last one the fastest.
    void gridOrder()
    {
        const SweepSpec s =
            loaded(sweep(R"("space": {"train.lr": {"values": [0.01, 0.001]}, "model.dim": {"values": [50, 100, 200]},
                                                     "model.norm": {"values": [1, 2]}})"));
        QCOMPARE(s.trialCount(), 12);
        QCOMPARE(compact(s.trialValues(0)), QStringLiteral(R"({"model.dim":50,"model.norm":1,"train.lr":0.01})"));
        QCOMPARE(compact(s.trialValues(1)), QStringLiteral(R"({"model.dim":50,"model.norm":1,"train.lr":0.001})"));
        QCOMPARE(compact(s.trialValues(2)), QStringLiteral(R"({"model.dim":50,"model.norm":2,"train.lr":0.01})"));
        QCOMPARE(compact(s.trialValues(4)), QStringLiteral(R"({"model.dim":100,"model.norm":1,"train.lr":0.01})"));
        QCOMPARE(compact(s.trialValues(11)), QStringLiteral(R"({"model.dim":200,"model.norm":2,"train.lr":0.001})"));
        QSet<QString> all;
        for (int i = 0; i < s.trialCount(); ++i) {
            all.insert(compact(s.trialValues(i)));
        }
        QCOMPARE(all.size(), 12);

        // "trials" takes the first N of the grid.
        const SweepSpec first = loaded(sweep(R"("trials": 5, "space": {"model.dim": {"range": [1, 9], "step": 2},
                                                                      "model.norm": {"values": [1, 2]}})"));
        QCOMPARE(first.trialCount(), 5);
        QCOMPARE(compact(first.trialValues(4)), QStringLiteral(R"({"model.dim":5,"model.norm":1})"));
        // More than the grid holds: the grid.
        QCOMPARE(loaded(sweep(R"("trials": 50, "space": {"model.dim": {"values": [1, 2]}})")).trialCount(), 2);
    }

    void rangeValues()
    {
        SweepParameter ints;
        ints.kind = SweepParameter::Kind::Range;
        ints.low = 1;
        ints.high = 9;
        ints.step = 2;
        ints.integer = true;
        QCOMPARE(ints.gridValues(), (QList<QJsonValue>{1, 3, 5, 7, 9}));
        QVERIFY(ints.isDiscrete());
        QVERIFY(!ints.isLogarithmic());

        // Each value computed afresh, read in its short form: 0.3, not 0.30000000000000004.
        const SweepSpec s =
            loaded(sweep(R"("space": {"model.dim": {"fixed": 100}, "train.lr": {"range": [0.1, 0.5], "step": 0.1}})"));
        QCOMPARE(s.trialCount(), 5);
        QCOMPARE(compact(s.trialValues(2)), QStringLiteral(R"({"model.dim":100,"train.lr":0.3})"));
        QCOMPARE(compact(s.trialValues(4)), QStringLiteral(R"({"model.dim":100,"train.lr":0.5})"));
        // A range that does not land on high stops below it.
        const SweepSpec short_ = loaded(sweep(R"("space": {"model.dim": {"range": [10, 25], "step": 10}})"));
        QCOMPARE(short_.space.first().gridValues(), (QList<QJsonValue>{10, 20}));
        QVERIFY(short_.space.first().integer);
    }

    void randomReproducible()
    {
        const QByteArray json = sweep(R"("method": "random", "trials": 200, "seed": 1,
            "space": {"train.lr": {"log_uniform": [0.0001, 0.1]}, "model.dim": {"values": [50, 100, 200]},
                      "model.norm": {"fixed": 1}, "train.batch_size": {"uniform": [16, 512], "int": true}})");
        const SweepSpec a = loaded(json);
        const SweepSpec b = loaded(json);
        QCOMPARE(a.trialCount(), 200);
        for (int i = 0; i < a.trialCount(); ++i) {
            QCOMPARE(a.trialValues(i), b.trialValues(i));
        }
        QCOMPARE(a.trialValues(7), a.trialValues(7));
        QVERIFY(a.trialValues(0) != a.trialValues(1));

        // The values of seed 1: a change of the generator or of its mapping shows here.
        // (train.lr goes through exp and log, whose last bit a C library may round otherwise.)
        const auto expect = [&](int trial, int dim, int batch, double lr) {
            const QJsonObject v = a.trialValues(trial);
            QCOMPARE(v.value(QLatin1String("model.dim")), QJsonValue(dim));
            QCOMPARE(v.value(QLatin1String("train.batch_size")), QJsonValue(batch));
            QVERIFY2(std::fabs(v.value(QLatin1String("train.lr")).toDouble() - lr) <= 1e-12 * lr,
                     qPrintable(compact(v)));
        };
        expect(0, 200, 98, 0.006547679987126263);
        expect(1, 100, 260, 0.011503762119404575);
        expect(199, 50, 71, 0.028712083895677226);

        // Another seed, other values.
        SweepSpec c = a;
        c.seed = 2;
        QVERIFY(c.trialValues(0) != a.trialValues(0));

        QSet<double> dims;
        double lowest = 1, highest = 0;
        for (int i = 0; i < a.trialCount(); ++i) {
            const QJsonObject v = a.trialValues(i);
            const double lr = v.value(QLatin1String("train.lr")).toDouble();
            QVERIFY2(lr >= 1e-4 && lr <= 0.1, qPrintable(QString::number(lr)));
            lowest = std::min(lowest, lr);
            highest = std::max(highest, lr);
            const QJsonValue batch = v.value(QLatin1String("train.batch_size"));
            QCOMPARE(batch.toDouble(), std::floor(batch.toDouble()));
            QVERIFY(batch.toDouble() >= 16 && batch.toDouble() <= 512);
            // Written as an integer, never "128.0" or 127.99.
            QVERIFY(!QJsonDocument(QJsonObject{{QStringLiteral("b"), batch}}).toJson().contains('.'));
            dims.insert(v.value(QLatin1String("model.dim")).toDouble());
            QCOMPARE(v.value(QLatin1String("model.norm")), QJsonValue(1));
        }
        QCOMPARE(dims, (QSet<double>{50, 100, 200}));
        // Spread over the decades of a log range: both ends are reached.
        QVERIFY2(lowest < 3e-4 && highest > 3e-2, qPrintable(QStringLiteral("%1 %2").arg(lowest).arg(highest)));
    }

    // A range's values drawn at random: one of its grid values, any of them.
    void randomRange()
    {
        const SweepSpec s = loaded(sweep(R"("method": "random", "trials": 10000, "seed": 3,
                                            "space": {"model.dim": {"range": [1, 4096]}, "train.lr": {"range": [0.1, 0.5], "step": 0.1}})"));
        QSet<qint64> dims;
        QSet<double> lrs;
        for (int i = 0; i < s.trialCount(); ++i) {
            const QJsonObject v = s.trialValues(i);
            const QJsonValue dim = v.value(QLatin1String("model.dim"));
            QVERIFY(dim.toDouble() >= 1 && dim.toDouble() <= 4096 && dim.toDouble() == std::floor(dim.toDouble()));
            dims.insert(qint64(dim.toDouble()));
            lrs.insert(v.value(QLatin1String("train.lr")).toDouble());
        }
        QVERIFY2(dims.size() > 3000, qPrintable(QString::number(dims.size())));
        QCOMPARE(lrs, (QSet<double>{0.1, 0.2, 0.3, 0.4, 0.5}));
    }

    void trialSpecs()
    {
        const SweepSpec s =
            loaded(R"({"name": "lr", "base": {"model": {"type": "transe", "norm": 2}, "data": {"kind": "synthetic-kg"},
                                         "train": {"seed": 5, "epochs": 3}}, )"
                   + kObjective + R"(, "space": {"train.lr": {"values": [0.1, 0.01, 0.001]}}})");
        const QJsonObject spec = s.trialSpec(2);
        const RunSpecView view(spec);
        QCOMPARE(view.name(), QStringLiteral("lr-3"));
        QCOMPARE(SweepSpec::trialName(QStringLiteral("lr"), 0), QStringLiteral("lr-1"));
        QCOMPARE(view.seed(), std::optional<qint64>(7));
        QCOMPARE(view.learningRate(), std::optional<double>(0.001));
        QCOMPARE(view.epochs(), std::optional<qint64>(3));
        QCOMPARE(view.model().value(QLatin1String("norm")), QJsonValue(2));
        QCOMPARE(view.modelType(), QStringLiteral("transe"));
        QVERIFY(validateRunSpec(spec, QString(), false, &validationCatalogue()).isEmpty());
        // No base seed: 1 + index.
        QCOMPARE(RunSpecView(loaded(sweep(R"("space": {"model.dim": {"values": [1, 2]}})")).trialSpec(1)).seed(),
                 std::optional<qint64>(2));
        // The space's seed wins.
        const SweepSpec seeds = loaded(sweep(R"("space": {"train.seed": {"values": [10, 20]}})"));
        QCOMPARE(RunSpecView(seeds.trialSpec(1)).seed(), std::optional<qint64>(20));

        QJsonObject o{{QStringLiteral("train"), 3}};
        setSpecValue(o, QStringLiteral("train.lr"), 0.5);
        setSpecValue(o, QStringLiteral("config.a.b"), QStringLiteral("x"));
        QCOMPARE(compact(o), QStringLiteral(R"({"config":{"a":{"b":"x"}},"train":{"lr":0.5}})"));
    }

    void roundTrip()
    {
        const QByteArray json = file(
            sweep(R"("method": "random", "trials": 27, "seed": 9, "max_grid": 10, "lanes": [1],
                     "space": {"train.lr": {"log_uniform": [0.0001, 0.1]}, "model.dim": {"values": [50, 100, 200]},
                               "model.norm": {"fixed": 1}, "train.batch_size": {"uniform": [16, 512], "int": true},
                               "train.epochs": {"range": [1, 9], "step": 4}},
                     "early_stopping": {"rule": "asha", "resource": "step", "min": 10, "max": 1000, "eta": 4})")
            + ", "
            + R"({"name": "grid", "base": {"model": {"type": "transe"}}, "objective": {"metric": "valid/mrr", "mode": "min"},
                  "space": {"model.dim": {"values": [1, 2]}}, "early_stopping": {"rule": "median", "max": 5}})");
        QStringList errors;
        const auto ex = load(json, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->sweeps.size(), 2);
        const SweepSpec &s = ex->sweeps.first();
        QCOMPARE(s.method, QStringLiteral("random"));
        QCOMPARE(s.seed, std::uint64_t(9));
        QCOMPARE(s.maxGrid, 10);
        QCOMPARE(s.lanes, QList<int>{1});
        QCOMPARE(s.objective, QStringLiteral("valid/mrr"));
        QVERIFY(s.maximize);
        QCOMPARE(s.stopping.rule, SweepStopping::Rule::Asha);
        QCOMPARE(s.stopping.resource, QStringLiteral("step"));
        QCOMPARE(s.stopping.eta, 4.0);
        QCOMPARE(s.space.size(), 5);
        QVERIFY(s.space.at(4).isLogarithmic()); // train.lr, in name order
        QVERIFY(!ex->sweeps.at(1).maximize);
        QCOMPARE(ex->sweeps.at(1).stopping.rule, SweepStopping::Rule::Median);

        const QJsonObject written = ex->toJson();
        QCOMPARE(written.value(QLatin1String("sweeps")).toArray().size(), 2);
        const auto again = Experiment::fromJson(written, &errors, &validationCatalogue());
        QVERIFY2(again, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(again->toJson(), written);
        for (int i = 0; i < 27; ++i) {
            QCOMPARE(again->sweeps.first().trialSpec(i), s.trialSpec(i));
        }
        // An experiment without sweeps writes none.
        Experiment plain = *ex;
        plain.sweeps.clear();
        QVERIFY(!plain.toJson().contains(QLatin1String("sweeps")));
    }

    // What could be read of a file with problems still holds its sweeps
    // (the bad keys left out), for `trainyard check`'s one pass.
    void partial()
    {
        QStringList errors;
        Experiment partial;
        QVERIFY(!load(file(sweep(R"("space": {"model.dim": {"values": [1, 2]}, "model.norm": {"values": []}})")),
                      &errors, &validationCatalogue(), &partial));
        QCOMPARE(errors.size(), 1);
        QCOMPARE(partial.sweeps.size(), 1);
        QCOMPARE(partial.sweeps.first().space.size(), 1);
        QCOMPARE(partial.sweeps.first().trialCount(), 2);
    }

    // A program base's relative cwd is the file's folder, as a run's is.
    void programFolderIsTheFiles()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("e.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(file(R"({"name": "p", "base": {"program": {"argv": ["python3", "t.py"], "cwd": "."}}, )" + kObjective
                     + R"(, "space": {"config.depth": {"values": [1, 2]}}})"));
        f.close();
        QStringList errors;
        const auto ex = Experiment::load(path, &errors, &validationCatalogue());
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(RunSpecView(ex->sweeps.first().base).programCwd(), QFileInfo(dir.path()).absoluteFilePath());
        QCOMPARE(RunSpecView(ex->sweeps.first().trialSpec(1)).programCwd(), QFileInfo(dir.path()).absoluteFilePath());
        QVERIFY(ex->commandLines().first().startsWith(QStringLiteral("(in ")));
    }

    void commandLines()
    {
        QStringList errors;
        const auto ex = load(
            file(
                R"({"name": "p", "base": {"program": {"argv": ["python3", "train.py", "--depth", "{depth}"], "env": {"K": "v"}}},
                     "objective": {"metric": "valid/acc", "mode": "max"}, "space": {"config.depth": {"values": [1, 2]}}})"),
            &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        const QStringList lines = ex->commandLines();
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QLatin1String("K=v python3 train.py --depth ")), qPrintable(lines.first()));
        QVERIFY(lines.first().contains(QLatin1String("{depth}")));
        QVERIFY(!ex->hasWorkerRuns());

        const auto worker = load(file(sweep(R"("space": {"model.dim": {"values": [1, 2]}})")), &errors);
        QVERIFY(worker);
        QVERIFY(worker->hasWorkerRuns()); // no run on a lane, a worker sweep
        QVERIFY(worker->commandLines().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSweepSpec)
#include "tst_sweepspec.moc"
