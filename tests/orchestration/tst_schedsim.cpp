// The scheduling benchmark's simulation (bench/scheduling): the contention
// model and the lower bound worked by hand, and on small seeded traces, for
// every policy, the invariants read back from what it recorded: no GPU over
// its memory or its slots, a 2-GPU run on 2 distinct GPUs, every run ends
// and none faster than alone, the makespan at least the lower bound.

#include "policies.h"
#include "simulation.h"
#include "trace.h"

#include <QTest>

#include <memory>

using namespace trainyard::schedsim;

namespace {

constexpr double kHour = 3600;

TraceRun run(const QString &name, double hours, double utilization, qint64 gib, int gpus = 1)
{
    TraceRun r;
    r.name = name;
    r.kind = QStringLiteral("large");
    r.seconds = hours * kHour;
    r.utilization = utilization;
    r.memoryBytes = gib * kGiB;
    r.gpus = gpus;
    return r;
}

// Puts each run on the GPUs given for it, all at t = 0: the contention
// model alone decides when they end.
class FixedPolicy : public Policy
{
public:
    explicit FixedPolicy(QList<QList<int>> where)
        : m_where(std::move(where))
    {
    }
    QString name() const override { return QStringLiteral("fixed"); }
    int slotsPerGpu() const override { return 8; }
    QList<Start> place(const SimState &state) override
    {
        QList<Start> starts;
        for (int run : state.queue) {
            starts.append(Start{run, m_where.at(run)});
        }
        return starts;
    }

private:
    QList<QList<int>> m_where;
};

// The invariants, from the records alone (not the simulation's own checks).
void checkInvariants(const Trace &trace, const SimResult &r)
{
    QVERIFY2(r.ok(), qPrintable(r.policy + QStringLiteral(": ") + r.violations.join(QStringLiteral("; "))));
    QCOMPARE(r.runs.size(), trace.runs.size());
    double lastEnd = 0;
    for (int i = 0; i < r.runs.size(); ++i) {
        const RunRecord &rec = r.runs.at(i);
        const TraceRun &tr = trace.runs.at(i);
        const QString what = r.policy + QLatin1Char(' ') + tr.name;
        QVERIFY2(rec.start >= 0, qPrintable(what + QStringLiteral(" never started")));
        QVERIFY2(rec.end - rec.start >= tr.seconds - 1e-3, qPrintable(what + QStringLiteral(" ran faster than alone")));
        QCOMPARE(rec.gpus.size(), tr.gpus);
        for (int g : rec.gpus) {
            QVERIFY(g >= 0 && g < trace.gpuCount);
        }
        if (tr.gpus == 2) {
            QVERIFY2(rec.gpus.at(0) != rec.gpus.at(1), qPrintable(what + QStringLiteral(" holds one GPU twice")));
        }
        lastEnd = std::max(lastEnd, rec.end);

        // At each start the occupation only grows, so the starts are where
        // memory and runs per GPU peak.
        QList<qint64> bytes(trace.gpuCount, 0);
        QList<int> runs(trace.gpuCount, 0);
        for (int j = 0; j < r.runs.size(); ++j) {
            const RunRecord &other = r.runs.at(j);
            if (other.start <= rec.start && rec.start < other.end) {
                for (int g : other.gpus) {
                    bytes[g] += trace.runs.at(j).memoryBytes;
                    runs[g] += 1;
                }
            }
        }
        for (int g = 0; g < trace.gpuCount; ++g) {
            QVERIFY2(bytes.at(g) <= trace.gpuBytes, qPrintable(what + QStringLiteral(": GPU over its memory")));
            QVERIFY2(runs.at(g) <= r.slotsPerGpu, qPrintable(what + QStringLiteral(": GPU over its slots")));
        }
    }
    QCOMPARE(r.makespan, lastEnd);
    QVERIFY(r.makespan >= trace.lowerBound() - 1e-6);
}

std::vector<std::unique_ptr<Policy>> everyPolicy(const Trace &trace)
{
    std::vector<std::unique_ptr<Policy>> policies;
    for (int perGpu : {2, 3, 4}) {
        policies.push_back(std::make_unique<TrainyardPolicy>(perGpu));
    }
    policies.push_back(std::make_unique<RoundRobinPolicy>(trace));
    policies.push_back(std::make_unique<FreeGpuFifoPolicy>());
    return policies;
}

} // namespace

class TestSchedSim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void contentionModel()
    {
        // a (1 h) and b (2 h), both u = 1, share GPU 0: S = 2, each at 1/2.
        // a ends at 2 h with b half done; b alone then ends at 3 h. c, a
        // 2-GPU run on GPUs 1 and 2, shares GPU 2 with d: S = 1.2 there, so
        // c goes at 1/1.2 although GPU 1 is its alone, and ends at 1.2 h
        // (d too).
        Trace trace;
        trace.gpuCount = 3;
        trace.runs = {run(QStringLiteral("a"), 1, 1.0, 1), run(QStringLiteral("b"), 2, 1.0, 1),
                      run(QStringLiteral("c"), 1, 0.6, 1, 2), run(QStringLiteral("d"), 1, 0.6, 1)};
        FixedPolicy policy({{0}, {0}, {1, 2}, {2}});
        const SimResult r = simulate(trace, policy);
        QVERIFY(r.ok());
        QCOMPARE(qRound(r.runs.at(0).end), qRound(2 * kHour));
        QCOMPARE(qRound(r.runs.at(1).end), qRound(3 * kHour));
        QCOMPARE(qRound(r.runs.at(2).end), qRound(1.2 * kHour));
        QCOMPARE(qRound(r.runs.at(3).end), qRound(1.2 * kHour));
        QCOMPARE(qRound(r.makespan), qRound(3 * kHour));
        // GPUs 1 and 2 idle from 1.2 h to 3 h.
        QCOMPARE(qRound(r.idleGpuSeconds), qRound(2 * 1.8 * kHour));
        QCOMPARE(r.meanWait, 0.0);
    }

    void lowerBound()
    {
        Trace trace;
        trace.gpuCount = 2;
        trace.runs = {run(QStringLiteral("a"), 1, 0.5, 1), run(QStringLiteral("b"), 2, 1.0, 1, 2)};
        // work: 0.5 + 4 = 4.5 GPU-h over 2 GPUs = 2.25 h > the longest run (2 h).
        QCOMPARE(trace.work(), 4.5 * kHour);
        QCOMPARE(trace.lowerBound(), 2.25 * kHour);
        trace.runs.append(run(QStringLiteral("c"), 5, 0.1, 1));
        QCOMPARE(trace.lowerBound(), 5 * kHour);
    }

    void traceIsSeededAndMixed()
    {
        const Trace a = makeTrace(7, 200);
        const Trace b = makeTrace(7, 200);
        QCOMPARE(a.runs.size(), 200);
        int twoGpu = 0, huge = 0;
        for (int i = 0; i < a.runs.size(); ++i) {
            QCOMPARE(a.runs.at(i).name, b.runs.at(i).name);
            QCOMPARE(a.runs.at(i).seconds, b.runs.at(i).seconds);
            QVERIFY(a.runs.at(i).utilization > 0 && a.runs.at(i).utilization <= 1);
            QVERIFY(a.runs.at(i).memoryBytes <= a.gpuBytes);
            twoGpu += a.runs.at(i).gpus == 2 ? 1 : 0;
            huge += a.runs.at(i).memoryBytes >= 70 * kGiB ? 1 : 0;
        }
        QCOMPARE(twoGpu, 20);
        QCOMPARE(huge, 6);
        QVERIFY(makeTrace(8, 200).runs.at(0).seconds != a.runs.at(0).seconds
                || makeTrace(8, 200).runs.at(0).name != a.runs.at(0).name);
    }

    void invariantsOnSmallTraces()
    {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            const Trace trace = makeTrace(seed, 40);
            for (auto &policy : everyPolicy(trace)) {
                checkInvariants(trace, simulate(trace, *policy));
                if (QTest::currentTestFailed()) {
                    return;
                }
            }
        }
    }

    void memoryBindsBeforeSlots()
    {
        // Eight 70 GiB runs and sixteen of 12 GiB: with 4 slots a GPU could
        // take a small one beside a huge one by its slots, not by its memory.
        Trace trace;
        for (int i = 0; i < 24; ++i) {
            trace.runs.append(i % 3 == 0 ? run(QStringLiteral("huge-%1").arg(i), 2, 0.9, 70)
                                         : run(QStringLiteral("small-%1").arg(i), 0.5, 0.3, 12, 1 + i % 5 / 4));
        }
        for (auto &policy : everyPolicy(trace)) {
            checkInvariants(trace, simulate(trace, *policy));
            if (QTest::currentTestFailed()) {
                return;
            }
        }
    }

    void roundRobinAndFifoKeepTheirOrder()
    {
        const Trace trace = makeTrace(3, 40);
        RoundRobinPolicy roundRobin(trace);
        const SimResult rr = simulate(trace, roundRobin);
        for (int i = 0; i < trace.runs.size(); ++i) {
            const QList<int> expected =
                trace.runs.at(i).gpus == 1 ? QList<int>{i % 8} : QList<int>{2 * (i % 4), 2 * (i % 4) + 1};
            QCOMPARE(rr.runs.at(i).gpus, expected);
        }
        FreeGpuFifoPolicy fifo;
        const SimResult ff = simulate(trace, fifo);
        for (int i = 1; i < trace.runs.size(); ++i) {
            QVERIFY(ff.runs.at(i).start >= ff.runs.at(i - 1).start);
        }
    }
};

QTEST_GUILESS_MAIN(TestSchedSim)
#include "tst_schedsim.moc"
