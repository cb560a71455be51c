// SweepRunner with trainyard-fake-worker on CPU lanes: a grid to its end
// over two lanes, ASHA's pauses and promotions (the promoted trial's steps
// continuous across its resume), a failing trial, the state read back at
// an opening (and refused when it is a link or malformed).

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"
#include "orchestration/sweep/sweepstatefile.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace trainyard;
using namespace trainyard::test;

namespace {

SweepParameter values(const QString &key, const QList<QJsonValue> &list)
{
    SweepParameter p;
    p.key = key;
    p.kind = SweepParameter::Kind::Values;
    p.values = list;
    return p;
}

// A sweep of the fake model over its quality (valid/mrr grows with it and the epoch).
SweepSpec qualitySweep(const QString &name, const QList<QJsonValue> &qualities, int stepMs = 5)
{
    SweepSpec s;
    s.name = name;
    s.base = fakeSpec(QStringLiteral("base"), 30, stepMs);
    QJsonObject model = s.base.value(QStringLiteral("model")).toObject();
    model.insert(QStringLiteral("quality"), 0.5);
    s.base.insert(QStringLiteral("model"), model);
    s.base.remove(QStringLiteral("name"));
    s.space << values(QStringLiteral("model.quality"), qualities);
    s.objective = QStringLiteral("valid/mrr");
    return s;
}

QList<int> metricSteps(const QString &runDir)
{
    QList<int> steps;
    for (const QJsonObject &m : metricsLines(runDir, QStringLiteral("metric"))) {
        steps << m.value(QStringLiteral("step")).toInt();
    }
    return steps;
}

} // namespace

class TestSweepRunner : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    Experiment sweepExperiment(const QJsonArray &lanes, const SweepSpec &sweep, QString *root = nullptr)
    {
        const QString r = m_dir.filePath(QStringLiteral("exp%1").arg(++m_counter));
        if (root) {
            *root = r;
        }
        Experiment ex = experiment(experimentJson(QStringLiteral("t"), r, lanes));
        ex.sweeps << sweep;
        return ex;
    }

    static std::unique_ptr<Session> open(const Experiment &ex, QStringList *warnings = nullptr)
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(ex, QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        if (warnings) {
            *warnings = errors;
        }
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        session->orchestrator()->supervisor()->setStopTimeout(3000);
        return session;
    }

    static bool runToEnd(Session *s, const QString &sweep, int ms = 60000)
    {
        Orchestrator *orch = s->orchestrator();
        orch->dispatcher()->startAll();
        if (QTest::qWaitFor([&] { return orch->sweeps()->isDone(sweep) && orch->dispatcher()->activeCount() == 0; },
                            ms)) {
            return true;
        }
        // What it waits for, to read in the failure's log.
        qWarning("%s: %s", qPrintable(sweep), qPrintable(orch->sweeps()->progressLine(sweep)));
        for (const TrialInfo &t : orch->sweeps()->trials(sweep)) {
            qWarning("trial %d: phase %d, run state %s, %s", t.index + 1, int(t.phase),
                     qPrintable(runStateName(orch->runs()->value(t.run).state)), qPrintable(t.reason));
        }
        return false;
    }

    static QHash<TrialInfo::Phase, int> phases(const QList<TrialInfo> &trials)
    {
        QHash<TrialInfo::Phase, int> count;
        for (const TrialInfo &t : trials) {
            ++count[t.phase];
        }
        return count;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QVERIFY(m_dir.isValid());
    }

    // Every trial of a grid runs, spread over both lanes, and is accounted;
    // the best is the best quality; the trials are not saved as lane runs.
    void gridRunsToTheEndOverTwoLanes()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("grid"), {0.2, 0.9, 0.5});
        sweep.space << values(QStringLiteral("train.lr"), {0.1, 0.01});
        auto s = open(sweepExperiment({lane(QStringLiteral("cpu"), 1, {}), lane(QStringLiteral("cpu"), 1, {})}, sweep));
        SweepRunner *runner = s->orchestrator()->sweeps();
        QCOMPARE(runner->trials(QStringLiteral("grid")).size(), 6);
        QCOMPARE(phases(runner->trials(QStringLiteral("grid"))).value(TrialInfo::Phase::Waiting), 6);
        QVERIFY(runToEnd(s.get(), QStringLiteral("grid")));
        const QList<TrialInfo> trials = runner->trials(QStringLiteral("grid"));
        QCOMPARE(phases(trials).value(TrialInfo::Phase::Finished), 6);
        QSet<int> lanes;
        QSet<QString> names;
        for (const TrialInfo &t : trials) {
            const RunInfo r = s->orchestrator()->runs()->value(t.run);
            QCOMPARE(r.state, RunState::Finished);
            QCOMPARE(r.name, SweepSpec::trialName(QStringLiteral("grid"), t.index));
            QCOMPARE(r.sweep, QStringLiteral("grid"));
            QCOMPARE(r.trial, t.index);
            int trial = -1;
            QCOMPARE(runner->sweepOf(t.run, &trial), QStringLiteral("grid"));
            QCOMPARE(trial, t.index);
            QCOMPARE(r.spec.value(QStringLiteral("model")).toObject().value(QStringLiteral("quality")),
                     t.values.value(QStringLiteral("model.quality")));
            QVERIFY(!std::isnan(t.objective));
            lanes.insert(r.lane);
            names.insert(r.name);
        }
        QCOMPARE(lanes, (QSet<int>{0, 1}));
        QCOMPARE(names.size(), 6);
        const QString line = runner->progressLine(QStringLiteral("grid"));
        QVERIFY2(line.contains(QStringLiteral("6/6 trials ended")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("best valid/mrr")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("quality 0.9")), qPrintable(line));
        // The trials are the sweep's: the lanes save none of them.
        const Experiment saved = s->orchestrator()->board()->toExperiment(QStringLiteral("t"), QString());
        for (const ExperimentLane &l : saved.lanes) {
            QVERIFY(l.runs.isEmpty());
        }
    }

    // ASHA pauses most trials at the first rung and promotes the best; a
    // promoted trial resumes from its checkpoint with no step repeated or
    // missing; the best quality trains to the end.
    void ashaPausesAndPromotesWithoutASeam()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("asha"), {0.3, 0.5, 0.9, 0.2, 0.7, 0.4, 0.6, 0.1, 0.8}, 8);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        QString root;
        auto s = open(sweepExperiment({lane(QStringLiteral("cpu"), 2, {})}, sweep, &root));
        SweepRunner *runner = s->orchestrator()->sweeps();
        QVERIFY(runToEnd(s.get(), QStringLiteral("asha")));
        const QList<TrialInfo> trials = runner->trials(QStringLiteral("asha"));
        const QHash<TrialInfo::Phase, int> count = phases(trials);
        QCOMPARE(count.value(TrialInfo::Phase::Waiting), 0);
        QCOMPARE(count.value(TrialInfo::Phase::Failed), 0);
        QVERIFY2(count.value(TrialInfo::Phase::Paused) >= 4, qPrintable(runner->progressLine(QStringLiteral("asha"))));
        QVERIFY(count.value(TrialInfo::Phase::Finished) >= 1);
        int promoted = 0;
        qint64 trialSteps = 0;
        for (const TrialInfo &t : trials) {
            const RunInfo r = s->orchestrator()->runs()->value(t.run);
            // Trained up to the rule's max: train.epochs set from it.
            QCOMPARE(r.spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("epochs")).toInt(), 9);
            if (t.phase == TrialInfo::Phase::Paused) {
                QCOMPARE(r.state, RunState::Stopped);
                QVERIFY2(r.message.contains(QStringLiteral("rung")), qPrintable(r.message));
                QCOMPARE(r.message, t.reason);
            }
            if (t.values.value(QStringLiteral("model.quality")).toDouble() == 0.9) {
                QCOMPARE(t.phase, TrialInfo::Phase::Finished);
                QCOMPARE(r.step, 90);
            }
            const QList<int> steps = metricSteps(r.runDir);
            trialSteps += steps.size();
            bool resumed = false;
            for (const QJsonObject &log : metricsLines(r.runDir, QStringLiteral("log"))) {
                resumed = resumed || log.value(QStringLiteral("text")).toString().startsWith(QStringLiteral("resumed"));
            }
            if (!resumed) {
                continue;
            }
            ++promoted;
            // No seam: every step once, in order, in the file and in the store.
            for (int i = 0; i < steps.size(); ++i) {
                QCOMPARE(steps.at(i), i + 1);
            }
            const MetricSeries *loss = s->metrics()->series(t.run, QStringLiteral("loss"));
            QVERIFY(loss);
            QCOMPARE(int(loss->size()), steps.size());
            for (std::size_t i = 0; i < loss->size(); ++i) {
                QCOMPARE(loss->step(i), std::int64_t(i + 1));
            }
        }
        QVERIFY(promoted >= 1);
        QVERIFY2(trialSteps < 9 * 90 * 0.6, qPrintable(QString::number(trialSteps))); // far from the full grid
        const QString line = runner->progressLine(QStringLiteral("asha"));
        QVERIFY2(line.startsWith(QStringLiteral("rung 1: 9/9 · rung 2: ")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("quality 0.9")), qPrintable(line));
        // The paused trials stay paused when everything is started again.
        QSignalSpy idleAgain(s->orchestrator()->dispatcher(), &Dispatcher::idle);
        s->orchestrator()->dispatcher()->startAll();
        QCOMPARE(idleAgain.count(), 1); // its pass found nothing to start
        QCOMPARE(phases(runner->trials(QStringLiteral("asha"))), count);
        QVERIFY(QFile::exists(SweepStateFile::path(root, QStringLiteral("asha"))));
    }

    // A failing trial counts as failed, is never the best, and the sweep goes on.
    void aFailingTrialIsNeverTheBest()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("fails"), {0.3, 0.95, 0.6, 0.4});
        QJsonObject model = sweep.base.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("fails_above"), 0.9);
        model.insert(QStringLiteral("at_step"), 25);
        sweep.base.insert(QStringLiteral("model"), model);
        auto s = open(sweepExperiment({lane(QStringLiteral("cpu"), 1, {})}, sweep));
        SweepRunner *runner = s->orchestrator()->sweeps();
        QVERIFY(runToEnd(s.get(), QStringLiteral("fails")));
        const QList<TrialInfo> trials = runner->trials(QStringLiteral("fails"));
        QCOMPARE(trials.at(1).phase, TrialInfo::Phase::Failed);
        QVERIFY(trials.at(1).objective > trials.at(2).objective); // it reported the highest before failing
        QCOMPARE(phases(trials).value(TrialInfo::Phase::Finished), 3);
        const QString line = runner->progressLine(QStringLiteral("fails"));
        QVERIFY2(line.contains(QStringLiteral("trial 3: quality 0.6")), qPrintable(line));
    }

    // The median rule inside the runner: one slot, the better trials first,
    // so each later one is judged against their running averages. A trial
    // whose best falls below their median after the grace period stops for
    // good (the card says why, its slot goes to the next trial, nothing
    // resumes it); the better ones train to the end.
    void medianRuleStopsTheWorseTrials()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("median"), {0.9, 0.8, 0.7, 0.2, 0.1}, 5);
        sweep.stopping.rule = SweepStopping::Rule::Median;
        sweep.stopping.min = 2; // the grace period, in epochs
        sweep.stopping.max = 6;
        auto s = open(sweepExperiment({lane(QStringLiteral("cpu"), 1, {})}, sweep));
        SweepRunner *runner = s->orchestrator()->sweeps();
        QVERIFY(runToEnd(s.get(), QStringLiteral("median")));
        const QList<TrialInfo> trials = runner->trials(QStringLiteral("median"));
        QCOMPARE(trials.size(), 5);
        const QHash<TrialInfo::Phase, int> count = phases(trials);
        QCOMPARE(count.value(TrialInfo::Phase::Paused), 0); // the median rule never pauses
        QCOMPARE(count.value(TrialInfo::Phase::Failed), 0);
        for (const TrialInfo &t : trials) {
            const RunInfo r = s->orchestrator()->runs()->value(t.run);
            const double quality = t.values.value(QStringLiteral("model.quality")).toDouble();
            QCOMPARE(r.spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("epochs")).toInt(), 6);
            if (quality >= 0.8) {
                QCOMPARE(t.phase, TrialInfo::Phase::Finished);
                QCOMPARE(r.step, 60);
                continue;
            }
            if (quality > 0.5) {
                continue; // 0.7 sits at the median's edge: either ending is right
            }
            QCOMPARE(t.phase, TrialInfo::Phase::Stopped);
            QCOMPARE(r.state, RunState::Stopped);
            QVERIFY2(t.reason.contains(QStringLiteral("median")), qPrintable(t.reason));
            QCOMPARE(r.message, t.reason);
            QVERIFY2(r.step < 60, qPrintable(QString::number(r.step))); // it did not train on to the end
            QVERIFY(t.resource >= 2);                                   // not before the grace period
        }
        const QString line = runner->progressLine(QStringLiteral("median"));
        QVERIFY2(line.contains(QStringLiteral("quality 0.9")), qPrintable(line));
        // Stopped by the rule is for good: starting everything again resumes none.
        QSignalSpy idleAgain(s->orchestrator()->dispatcher(), &Dispatcher::idle);
        s->orchestrator()->dispatcher()->startAll();
        QCOMPARE(idleAgain.count(), 1); // its pass found nothing to start
        QCOMPARE(phases(runner->trials(QStringLiteral("median"))), count);
        QString error;
        QVERIFY(!runner->promoteTrial(QStringLiteral("median"), trials.last().index, &error));
    }

    // Closed and opened again: the trials come back on their lanes with
    // their states and reasons, ASHA's records rebuilt from their metrics; a
    // malformed or linked state file is refused with a message and the
    // sweep starts from its run folders.
    void reopeningReadsTheStateBack()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("again"), {0.3, 0.9, 0.5, 0.2, 0.7, 0.4}, 8);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        QString root;
        const Experiment ex =
            sweepExperiment({lane(QStringLiteral("cpu"), 1, {}), lane(QStringLiteral("cpu"), 1, {})}, sweep, &root);
        QList<TrialInfo> before;
        QString lineBefore;
        QList<int> lanesBefore;
        {
            auto s = open(ex);
            QVERIFY(runToEnd(s.get(), QStringLiteral("again")));
            before = s->orchestrator()->sweeps()->trials(QStringLiteral("again"));
            lineBefore = s->orchestrator()->sweeps()->progressLine(QStringLiteral("again"));
            for (const TrialInfo &t : std::as_const(before)) {
                lanesBefore << s->orchestrator()->runs()->value(t.run).lane;
            }
        }
        const QString statePath = SweepStateFile::path(root, QStringLiteral("again"));
        const QByteArray goodState = readFile(statePath);
        QVERIFY(!goodState.isEmpty());
        {
            QStringList warnings;
            auto s = open(ex, &warnings);
            QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));
            SweepRunner *runner = s->orchestrator()->sweeps();
            const QList<TrialInfo> after = runner->trials(QStringLiteral("again"));
            QCOMPARE(after.size(), before.size());
            for (int i = 0; i < after.size(); ++i) {
                QCOMPARE(after.at(i).phase, before.at(i).phase);
                QCOMPARE(after.at(i).reason, before.at(i).reason);
                QCOMPARE(after.at(i).objective, before.at(i).objective);
                const RunInfo r = s->orchestrator()->runs()->value(after.at(i).run);
                QCOMPARE(r.name, SweepSpec::trialName(QStringLiteral("again"), i));
                QCOMPARE(r.lane, lanesBefore.at(i));
                if (after.at(i).phase == TrialInfo::Phase::Paused) {
                    QCOMPARE(r.message, after.at(i).reason);
                }
            }
            // The rung records come from the metrics: the same line.
            QCOMPARE(runner->progressLine(QStringLiteral("again")), lineBefore);
            QVERIFY(runner->isDone(QStringLiteral("again")));
        }
        // Malformed: refused, named; the trials come back from their folders.
        QVERIFY(writeFile(statePath, "{\"spec_hash\": 3, \"trials\": []}"));
        {
            QStringList warnings;
            auto s = open(ex, &warnings);
            QVERIFY2(warnings.join(QLatin1Char('\n')).contains(statePath + QStringLiteral(": spec_hash: expected")),
                     qPrintable(warnings.join(QLatin1Char('\n'))));
            QVERIFY(warnings.join(QLatin1Char('\n')).contains(QStringLiteral("starts from what its run folders say")));
            const QList<TrialInfo> after = s->orchestrator()->sweeps()->trials(QStringLiteral("again"));
            for (const TrialInfo &t : after) {
                QVERIFY(t.run != 0);
            }
        }
        // A link in its place: never followed.
        const QString elsewhere = m_dir.filePath(QStringLiteral("elsewhere.json"));
        QVERIFY(writeFile(elsewhere, goodState));
        QFile::remove(statePath);
        QVERIFY(QFile::link(elsewhere, statePath));
        {
            QStringList warnings;
            auto s = open(ex, &warnings);
            QVERIFY2(warnings.join(QLatin1Char('\n')).contains(statePath),
                     qPrintable(warnings.join(QLatin1Char('\n'))));
            QVERIFY(warnings.join(QLatin1Char('\n')).contains(QStringLiteral("starts from what its run folders say")));
        }
        // Its state was written in the link's place, not through it.
        QCOMPARE(readFile(elsewhere), goodState);
        QVERIFY(!QFileInfo(statePath).isSymLink());

        // What the file says is checked against the folders: a trial said to
        // be another run, and a trial folder holding another spec, are not
        // adopted (their history is not the trial's).
        QJsonObject state = QJsonDocument::fromJson(goodState).object();
        QJsonArray trials = state.value(QStringLiteral("trials")).toArray();
        for (qsizetype i = 0; i < trials.size(); ++i) {
            QJsonObject t = trials.at(i).toObject();
            if (t.value(QStringLiteral("index")).toInt() == 0) {
                t.insert(QStringLiteral("run"), QStringLiteral("baseline"));
                trials.replace(i, t);
            }
        }
        state.insert(QStringLiteral("trials"), trials);
        QVERIFY(writeFile(statePath, QJsonDocument(state).toJson()));
        const QString secondSpec = root + QStringLiteral("/again-2/spec.json");
        QJsonObject other = readJsonFile(secondSpec);
        other.insert(QStringLiteral("note"), QStringLiteral("another run's"));
        QVERIFY(writeFile(secondSpec, QJsonDocument(other).toJson()));
        {
            QStringList warnings;
            auto s = open(ex, &warnings);
            const QString all = warnings.join(QLatin1Char('\n'));
            QVERIFY2(all.contains(QStringLiteral("trial 1: its run \"baseline\" is not named for it")),
                     qPrintable(all));
            QVERIFY2(all.contains(QStringLiteral("trial 2: the folder "))
                         && all.contains(QStringLiteral("another run's spec")),
                     qPrintable(all));
            QVERIFY(!s->orchestrator()->runs()->findByName(QStringLiteral("baseline")));
            const QList<TrialInfo> after = s->orchestrator()->sweeps()->trials(QStringLiteral("again"));
            QCOMPARE(after.at(0).phase, TrialInfo::Phase::Waiting);
            QCOMPARE(after.at(1).phase, TrialInfo::Phase::Waiting);
            QVERIFY(after.at(2).run != 0); // the others are
        }
    }

    // By hand: a paused sweep places no trial until resumed, and resumed it
    // places them even once the board went idle; a paused trial promoted
    // while nothing dispatches resumes from its checkpoint; a trial stopped
    // by hand is stopped for good, with its reason.
    void controlsByHand()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("hand"), {0.3, 0.9, 0.5, 0.2, 0.7, 0.4}, 8);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        sweep.lanes = {0};
        auto s = open(sweepExperiment(
            {lane(QStringLiteral("cpu"), 1, {}), lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("plain"))})},
            sweep));
        Orchestrator *orch = s->orchestrator();
        SweepRunner *runner = orch->sweeps();
        const QString name = QStringLiteral("hand");
        orch->dispatcher()->startAll();
        QTRY_COMPARE(phases(runner->trials(name)).value(TrialInfo::Phase::Training), 1);
        runner->pauseSweep(name);
        QTRY_VERIFY_WITH_TIMEOUT(!orch->dispatcher()->isDispatching(), 20000); // idle: nothing more to start
        QCOMPARE(phases(runner->trials(name)).value(TrialInfo::Phase::Training), 0);
        QCOMPARE(phases(runner->trials(name)).value(TrialInfo::Phase::Waiting), 5);
        QVERIFY(!runner->isDone(name));
        runner->resumeSweep(name);
        QVERIFY(QTest::qWaitFor([&] { return runner->isDone(name); }, 60000));
        QTRY_VERIFY_WITH_TIMEOUT(orch->dispatcher()->activeCount() == 0, 30000);
        for (const TrialInfo &t : runner->trials(name)) {
            QCOMPARE(orch->runs()->value(t.run).lane, 0); // its lanes only
        }

        QList<TrialInfo> trials = runner->trials(name);
        int paused = -1, ended = -1;
        for (const TrialInfo &t : trials) {
            if (t.phase == TrialInfo::Phase::Paused) {
                paused = paused < 0 ? t.index : paused;
            } else if (t.phase == TrialInfo::Phase::Finished) {
                ended = t.index;
            }
        }
        QVERIFY(paused >= 0 && ended >= 0);
        QString error;
        QVERIFY(!runner->promoteTrial(name, ended, &error));
        QVERIFY2(error.contains(QStringLiteral("is not paused")), qPrintable(error));
        // Promoted by hand with nothing dispatching: it starts from its checkpoint.
        QVERIFY(!orch->dispatcher()->isDispatching());
        const RunId promoted = trials.at(paused).run;
        QVERIFY2(runner->promoteTrial(name, paused, &error), qPrintable(error));
        QTRY_VERIFY(runner->trials(name).at(paused).phase != TrialInfo::Phase::Training);
        const QList<int> steps = metricSteps(orch->runs()->value(promoted).runDir);
        QVERIFY(steps.size() > 10);
        for (int i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps.at(i), i + 1);
        }
        // Stopped by hand: for good, and it says so.
        trials = runner->trials(name);
        int other = -1;
        for (const TrialInfo &t : trials) {
            other = t.phase == TrialInfo::Phase::Paused ? t.index : other;
        }
        QVERIFY(other >= 0);
        QVERIFY2(runner->stopTrial(name, other, &error), qPrintable(error));
        QCOMPARE(runner->trials(name).at(other).phase, TrialInfo::Phase::Stopped);
        QCOMPARE(orch->runs()->value(trials.at(other).run).message, QStringLiteral("stopped by hand"));
        QVERIFY(!runner->promoteTrial(name, other, &error));
    }

    // A promoted trial's points that arrive before its new attempt runs
    // (the last attempt's lines, read late) are judged once it runs: a
    // rung's decision then would stop a run that has not started (on a
    // cluster: cancel its pending job, and the trial would leave the search).
    void aLateReportWaitsForThePromotedTrialToRun()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("late"), {0.3, 0.9, 0.5, 0.2}, 8);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        auto s = open(sweepExperiment({lane(QStringLiteral("cpu"), 1, {})}, sweep));
        Orchestrator *orch = s->orchestrator();
        SweepRunner *runner = orch->sweeps();
        const QString name = QStringLiteral("late");
        QVERIFY(runToEnd(s.get(), name));
        int paused = -1;
        for (const TrialInfo &t : runner->trials(name)) {
            paused = paused < 0 && t.phase == TrialInfo::Phase::Paused ? t.index : paused;
        }
        QVERIFY(paused >= 0);
        const RunId run = runner->trials(name).at(paused).run;
        const RunInfo before = orch->runs()->value(run);
        QVERIFY(!orch->dispatcher()->isDispatching());
        QString error;
        QVERIFY2(runner->promoteTrial(name, paused, &error), qPrintable(error));
        QCOMPARE(orch->runs()->value(run).state, RunState::Starting);
        // The worst value at the second rung (epoch 3), as the last attempt might have sent it.
        const qint64 step = before.step + 1;
        s->metrics()->add(run, QStringLiteral("valid/epoch"), step, 0, 3.0);
        s->metrics()->add(run, QStringLiteral("valid/mrr"), step, 0, 0.0);
        s->metrics()->flush();
        QCOMPARE(orch->runs()->value(run).state, RunState::Starting); // not asked to stop
        QCOMPARE(runner->trials(name).at(paused).phase, TrialInfo::Phase::Training);
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(run).state), 30000);
        const TrialInfo t = runner->trials(name).at(paused);
        QVERIFY2(t.phase == TrialInfo::Phase::Finished || t.phase == TrialInfo::Phase::Paused,
                 qPrintable(orch->runs()->value(run).message));
        QVERIFY(orch->runs()->value(run).step > before.step); // it trained again
    }

    // The app closed with its trials left training (close(true), as the
    // window's "leave running"), then the same experiment opened again in
    // the same process: the live trials are the sweep's again, reattached
    // on their lanes; the search goes on to its end, every trial once,
    // every curve unbroken.
    void closedWhileTrainingAndOpenedAgain()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("reopen"), {0.3, 0.9, 0.5, 0.2, 0.7, 0.4}, 10);
        QJsonObject model = sweep.base.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("steps_per_epoch"), 40); // the first rung well after the closing
        sweep.base.insert(QStringLiteral("model"), model);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        QString root;
        const Experiment ex = sweepExperiment({lane(QStringLiteral("cpu"), 2, {})}, sweep, &root);
        QList<int> liveBefore;
        {
            auto s = open(ex);
            Orchestrator *orch = s->orchestrator();
            orch->dispatcher()->startAll();
            QVERIFY(QTest::qWaitFor(
                [&] {
                    int running = 0;
                    for (const TrialInfo &t : orch->sweeps()->trials(QStringLiteral("reopen"))) {
                        running += orch->runs()->value(t.run).state == RunState::Running ? 1 : 0;
                    }
                    return running == 2;
                },
                10000));
            for (const TrialInfo &t : orch->sweeps()->trials(QStringLiteral("reopen"))) {
                if (t.phase == TrialInfo::Phase::Training) {
                    liveBefore << t.index;
                }
            }
            QSignalSpy closed(s.get(), &Session::closed);
            s->close(true);
            QVERIFY(closed.count() == 1 || closed.wait(10000));
        }
        QCOMPARE(liveBefore.size(), 2);
        const QJsonObject live =
            QJsonDocument::fromJson(readFile(root + QStringLiteral("/.trainyard-state.json"))).object();
        QCOMPARE(live.value(QStringLiteral("runs")).toObject().size(), 2);

        QStringList warnings;
        auto s = open(ex, &warnings);
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));
        Orchestrator *orch = s->orchestrator();
        const QList<TrialInfo> reopened = orch->sweeps()->trials(QStringLiteral("reopen"));
        for (int index : std::as_const(liveBefore)) {
            const TrialInfo &t = reopened.at(index);
            QCOMPARE(t.phase, TrialInfo::Phase::Training);
            QCOMPARE(orch->runs()->value(t.run).state, RunState::Running); // reattached, not started again
        }
        QVERIFY(runToEnd(s.get(), QStringLiteral("reopen"), 90000));
        for (const TrialInfo &t : orch->sweeps()->trials(QStringLiteral("reopen"))) {
            const RunInfo r = orch->runs()->value(t.run);
            QCOMPARE(r.name, SweepSpec::trialName(QStringLiteral("reopen"), t.index));
            const QList<int> steps = metricSteps(r.runDir);
            QVERIFY(!steps.isEmpty());
            for (int k = 0; k < steps.size(); ++k) {
                QCOMPARE(steps.at(k), k + 1);
            }
            QVERIFY(!QFileInfo::exists(r.runDir + QStringLiteral(".attempt-1"))); // each trial once, in its folder
        }
        QVERIFY2(orch->sweeps()->progressLine(QStringLiteral("reopen")).startsWith(QStringLiteral("rung 1: 6/6")),
                 qPrintable(orch->sweeps()->progressLine(QStringLiteral("reopen"))));
    }

    // `trainyard run --leave-queued` interrupted with its trials training,
    // then run again: the live trials are reattached as the sweep's, the
    // rest of the search goes on, every trial once, every curve unbroken.
    void leftTrainingAndRunAgain()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("away"), {0.3, 0.9, 0.5, 0.2, 0.7, 0.4}, 10);
        QJsonObject model = sweep.base.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("steps_per_epoch"), 40); // the first rung well after the interruption
        sweep.base.insert(QStringLiteral("model"), model);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        const QString root = m_dir.filePath(QStringLiteral("away-runs"));
        QJsonObject file = experimentJson(QStringLiteral("away"), root, {lane(QStringLiteral("cpu"), 2, {})});
        file.insert(QStringLiteral("sweeps"), QJsonArray{sweep.toJson()});
        const QString path = m_dir.filePath(QStringLiteral("away.json"));
        QVERIFY(writeFile(path, QJsonDocument(file).toJson()));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        QProcess first;
        first.setProcessEnvironment(env);
        first.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), QStringLiteral("--leave-queued"), path});
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += first.readAllStandardOutput()).contains("away-1: running")
                                     && out.contains("away-2: running"),
                                 10000);
        ::kill(static_cast<pid_t>(first.processId()), SIGINT);
        QVERIFY(first.waitForFinished(10000));
        const QJsonObject live =
            QJsonDocument::fromJson(readFile(root + QStringLiteral("/.trainyard-state.json"))).object();
        QCOMPARE(live.value(QStringLiteral("runs")).toObject().keys(),
                 (QStringList{QStringLiteral("away-1"), QStringLiteral("away-2")}));

        const ProcessOutcome again =
            runProcess(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), path}, env, 90000);
        QVERIFY2(again.exitCode == 0, qPrintable(again.all()));
        QVERIFY2(again.out.contains(QStringLiteral("away: rung 1: 6/6")), qPrintable(again.out));
        for (int i = 1; i <= 6; ++i) {
            const QString dir = root + QStringLiteral("/away-%1").arg(i);
            const QList<int> steps = metricSteps(dir);
            QVERIFY(!steps.isEmpty());
            for (int k = 0; k < steps.size(); ++k) {
                QCOMPARE(steps.at(k), k + 1);
            }
            QVERIFY(!QFileInfo::exists(dir + QStringLiteral(".attempt-1"))); // each trial once, in its folder
        }
        const QJsonObject state =
            QJsonDocument::fromJson(readFile(SweepStateFile::path(root, QStringLiteral("away")))).object();
        QCOMPARE(state.value(QStringLiteral("trials")).toArray().size(), 6);
    }

    // `trainyard run` runs the file's sweep beside a plain run, one progress
    // line per change, and ends; `export --summary` writes a row per run.
    void headlessRunAndSummary()
    {
        SweepSpec sweep = qualitySweep(QStringLiteral("cli"), {0.3, 0.9, 0.5, 0.2, 0.7, 0.4}, 8);
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 9;
        sweep.stopping.eta = 3;
        const QString root = m_dir.filePath(QStringLiteral("cli-runs"));
        QJsonObject file = experimentJson(QStringLiteral("cli"), root,
                                          {lane(QStringLiteral("cpu"), 2, {fakeSpec(QStringLiteral("plain"), 20)})});
        file.insert(QStringLiteral("sweeps"), QJsonArray{sweep.toJson()});
        const QString path = m_dir.filePath(QStringLiteral("cli.json"));
        QVERIFY(writeFile(path, QJsonDocument(file).toJson()));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        const ProcessOutcome run = runProcess(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), path}, env, 90000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
        QStringList progress;
        for (const QString &line : run.out.split(QLatin1Char('\n'))) {
            if (line.contains(QStringLiteral("cli: rung 1: "))) {
                progress << line;
            }
        }
        QVERIFY2(progress.size() >= 3, qPrintable(run.out));
        QVERIFY2(progress.last().contains(QStringLiteral("rung 1: 6/6 · rung 2: ")), qPrintable(run.out));
        QVERIFY2(progress.last().contains(QStringLiteral("best valid/mrr")), qPrintable(run.out));
        QCOMPARE(progress.removeDuplicates(), progress.size() > 1 ? 1 : 0); // the final line once more, nothing else

        const ProcessOutcome summary = runProcess(
            buildProgram("TRAINYARD_BIN"), {QStringLiteral("export"), QStringLiteral("--summary"), path}, env, 30000);
        QVERIFY2(summary.exitCode == 0, qPrintable(summary.all()));
        const QStringList rows = summary.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(rows.size(), 1 + 1 + 6);
        const QStringList header = rows.first().split(QLatin1Char(','));
        QCOMPARE(header.mid(0, 4), (QStringList{QStringLiteral("run"), QStringLiteral("sweep"), QStringLiteral("trial"),
                                                QStringLiteral("state")}));
        const qsizetype quality = header.indexOf(QStringLiteral("model.quality"));
        const qsizetype final = header.indexOf(QStringLiteral("valid/mrr:final"));
        const qsizetype best = header.indexOf(QStringLiteral("valid/mrr:best"));
        QVERIFY(quality > 0 && final > 0 && best > 0);
        QCOMPARE(rows.at(1).split(QLatin1Char(',')).mid(0, 4),
                 (QStringList{QStringLiteral("plain"), QString(), QString(), QStringLiteral("finished")}));
        int paused = 0;
        for (int i = 2; i < rows.size(); ++i) {
            const QStringList f = rows.at(i).split(QLatin1Char(','));
            QCOMPARE(f.size(), header.size());
            QCOMPARE(f.at(0), QStringLiteral("cli-%1").arg(i - 1));
            QCOMPARE(f.at(1), QStringLiteral("cli"));
            QCOMPARE(f.at(2), QString::number(i - 1));
            QVERIFY2(f.at(3) == QStringLiteral("stopped (promotable)") || f.at(3) == QStringLiteral("finished"),
                     qPrintable(rows.at(i)));
            paused += f.at(3) == QStringLiteral("stopped (promotable)") ? 1 : 0;
            QCOMPARE(f.at(quality).toDouble(), sweep.space.first().values.at(i - 2).toDouble());
            QVERIFY(f.at(best).toDouble() >= f.at(final).toDouble()); // mrr grows: its last is its best
            QVERIFY(f.at(final).toDouble() > 0);
        }
        QVERIFY(paused >= 2);
    }
};

QTEST_MAIN(TestSweepRunner)
#include "tst_sweeprunner.moc"
