#include "orchestration/experiment/experimentlanes.h"

#include "orchestration/devices/device.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/experiment/rounds.h"
#include "orchestration/runspec/runspecview.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>

namespace trainyard {

using namespace jsonchecks;

namespace {

// Far beyond any real experiment; keeps a hostile file from expanding into
// millions of runs (repeat ≤ 1000 times thousands of entries).
constexpr int kMaxRuns = 10000;

} // namespace

void readLanes(const QJsonObject &top, Experiment &ex, const ModelCatalogue *catalogue, bool partial,
               QStringList &problems)
{
    const QJsonValue lanes = top.value(QStringLiteral("lanes"));
    if (!lanes.isArray()) {
        problems << expected(QStringLiteral("lanes"), QStringLiteral("an array of lanes"), lanes);
    } else {
        const QJsonArray laneArray = lanes.toArray();
        QHash<QString, QString> names;     // run name -> where it was first used
        QHash<QString, QString> laneNames; // lane name -> the lane that has it
        int totalRuns = 0;
        for (int l = 0; l < laneArray.size(); ++l) {
            const QString lp = QStringLiteral("lanes[%1]").arg(l);
            if (!laneArray.at(l).isObject()) {
                problems << expected(lp, QStringLiteral("an object"), laneArray.at(l));
                if (partial) { // keeps the next lanes' indices
                    ex.lanes << ExperimentLane();
                }
                continue;
            }
            const QJsonObject lo = laneArray.at(l).toObject();
            checkKeys(lo, keytables::lane(), lp, problems);
            ExperimentLane lane;
            if (lo.contains(QStringLiteral("name"))) {
                const QJsonValue n = lo.value(QStringLiteral("name"));
                if (!n.isString() || !isLaneName(n.toString())) {
                    problems << expected(lp + QStringLiteral(".name"), laneNameRule(), n);
                } else if (laneNames.contains(n.toString())) {
                    problems << QStringLiteral("%1.name: lane name \"%2\" is already used by %3")
                                    .arg(lp, n.toString(), laneNames.value(n.toString()));
                } else {
                    laneNames.insert(lane.name = n.toString(), lp);
                }
            }
            const QJsonValue device = lo.value(QStringLiteral("device"));
            const Device parsed = Device::parse(device.toString());
            const QString clusterName = parsed.cluster();
            const bool slurm = parsed.isSlurm();
            if (!device.isString() || !parsed.isValid()) {
                problems << expected(
                    lp + QStringLiteral(".device"),
                    QStringLiteral("\"cpu\", \"cuda:N\", a pool \"cuda:*\", \"cuda:0-3\" or \"cuda:0,2\", "
                                   "\"slurm:CLUSTER/PARTITION\", \"ssh:HOST/cuda:N\" (or a pool) or \"ssh:HOST/cpu\""),
                    device);
            } else if (parsed.isRemote() && !ex.host(parsed.host())) {
                QStringList known;
                for (const ExperimentHost &h : std::as_const(ex.hosts)) {
                    known << h.name;
                }
                problems << QStringLiteral("%1.device: no host \"%2\" in hosts (%3)")
                                .arg(lp, parsed.host(),
                                     known.isEmpty()
                                         ? QStringLiteral("none is defined")
                                         : QStringLiteral("expected one of ") + known.join(QStringLiteral(", ")));
            } else if (slurm && !ex.cluster(clusterName)) {
                QStringList known;
                for (const ExperimentCluster &c : std::as_const(ex.clusters)) {
                    known << c.name;
                }
                problems << QStringLiteral("%1.device: no cluster \"%2\" in clusters (%3)")
                                .arg(lp, clusterName,
                                     known.isEmpty()
                                         ? QStringLiteral("none is defined")
                                         : QStringLiteral("expected one of ") + known.join(QStringLiteral(", ")));
            } else {
                lane.device = parsed;
            }
            if (lo.contains(QStringLiteral("gres"))) {
                // name[:type][:count], as sbatch --gres takes one.
                static const QRegularExpression gres(QRegularExpression::anchoredPattern(
                    QStringLiteral("[A-Za-z][A-Za-z0-9_]*(:[A-Za-z0-9_.-]+)?(:[0-9]+)?")));
                const QJsonValue g = lo.value(QStringLiteral("gres"));
                if (!slurm) {
                    problems << QStringLiteral("%1.gres: only for a \"slurm:CLUSTER/PARTITION\" lane").arg(lp);
                } else if (!g.isString() || !gres.match(g.toString()).hasMatch()) {
                    problems << expected(lp + QStringLiteral(".gres"),
                                         QStringLiteral("a Slurm GRES such as \"gpu:1\" or \"gpu:a100:2\""), g);
                } else {
                    lane.gres = g.toString();
                }
            }
            if (lo.contains(QStringLiteral("busy"))) {
                const QJsonValue b = lo.value(QStringLiteral("busy"));
                static const QStringList policies{QStringLiteral("wait"), QStringLiteral("share"),
                                                  QStringLiteral("ignore")};
                if (!b.isString() || !policies.contains(b.toString())) {
                    problems << expected(lp + QStringLiteral(".busy"),
                                         QStringLiteral("\"wait\", \"share\" or \"ignore\""), b);
                } else if (!parsed.isGpu()) {
                    problems
                        << QStringLiteral("%1.busy: only for a lane of GPUs (\"cuda:N\", \"cuda:*\", ...)").arg(lp);
                } else {
                    lane.busy = b.toString();
                }
            }
            checkInt(lo, QStringLiteral("slots"), lp, 1, 0, problems);
            lane.slotCount = lo.value(QStringLiteral("slots")).toInt(1);
            if (lo.contains(QStringLiteral("runs")) && !lo.value(QStringLiteral("runs")).isArray()) {
                problems << expected(lp + QStringLiteral(".runs"), QStringLiteral("an array of run specs"),
                                     lo.value(QStringLiteral("runs")));
            }
            const QJsonArray runs = lo.value(QStringLiteral("runs")).toArray();
            for (int r = 0; r < runs.size(); ++r) {
                const QString rp = lp + QStringLiteral(".runs[%1]").arg(r);
                if (!runs.at(r).isObject()) {
                    problems << expected(rp, QStringLiteral("a run spec object"), runs.at(r));
                    if (partial) { // keeps the next runs' indices, their JSON paths
                        lane.runs << ExperimentRun{QJsonObject(), 1, true, rp};
                    }
                    continue;
                }
                const QJsonObject spec = runs.at(r).toObject();
                const QString folderNameRule = QStringLiteral("a run folder name of 1–100 letters, digits or ._+@- not "
                                                              "starting with '.' nor ending in .attempt-N "
                                                              "(repeats add \"-N\")");
                // The name becomes the run folder (a name taken from
                // model.type or grown by "-N" or a round's prefix is checked here too).
                const auto claim = [&](const QString &n, const QString &where) {
                    if (!isSafeRunName(n)) {
                        problems << expected(where + QStringLiteral(".name"), folderNameRule, QJsonValue(n));
                        return false;
                    }
                    if (names.contains(n)) {
                        problems << QStringLiteral("%1.name: run name \"%2\" is already used by %3")
                                        .arg(where, n, names.value(n));
                    } else {
                        names.insert(n, where);
                    }
                    return true;
                };
                if (rounds::isEntry(spec)) {
                    const int added =
                        rounds::readEntry(spec, rp, catalogue, kMaxRuns - totalRuns, claim, ex, lane, problems);
                    if (added < 0) {
                        break;
                    }
                    totalRuns += added;
                    continue;
                }
                const QStringList specErrors = validateRunSpec(spec, rp, true, catalogue);
                problems << specErrors;
                if (!specErrors.isEmpty()) {
                    // A name taken from model.type is a run folder too: one
                    // more problem to report with the rest.
                    const QString derived = RunSpecView(spec).effectiveName();
                    if (!spec.contains(QStringLiteral("name")) && !derived.isEmpty() && !isSafeRunName(derived)) {
                        problems << expected(rp + QStringLiteral(".name"), folderNameRule, QJsonValue(derived));
                    }
                    if (partial) { // never returned as valid: there are problems
                        lane.runs << ExperimentRun{spec, 1, true, rp};
                    }
                    continue;
                }
                ExperimentRun run;
                run.repeat = RunSpecView(spec).repeat();
                run.spec = withDefaults(spec);
                run.spec.remove(QStringLiteral("repeat"));
                run.path = rp;
                if (totalRuns + run.repeat > kMaxRuns) {
                    problems << QStringLiteral("%1.repeat: the experiment would hold more than %2 runs")
                                    .arg(rp)
                                    .arg(kMaxRuns);
                    break;
                }
                totalRuns += run.repeat;
                for (int i = 0; i < run.repeat; ++i) {
                    if (!claim(RunSpecView(expandRepeat(run.spec, i, run.repeat)).name(), rp)) {
                        break;
                    }
                }
                lane.runs << run;
            }
            ex.lanes << lane;
        }
    }
}

} // namespace trainyard
