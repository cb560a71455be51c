#include "orchestration/experiment/dependencycheck.h"

#include "orchestration/devices/device.h"
#include "orchestration/experiment/afterreference.h"
#include "orchestration/experiment/dependencygraph.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/runspec/runspecview.h"

#include <QDir>

#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSet>
#include <algorithm>

namespace trainyard {

using namespace jsonchecks;

namespace {

const QString kAfter = QStringLiteral("after");

// One node of the file's graph and where it came from.
struct Origin
{
    QString path;      // its entry's JSON path
    QString afterPath; // where its "after" is written (a rounds entry's, for its first round)
    int lane = -1;
    QJsonObject spec;
    bool firstOfEntry = true; // the entry's first run: its problems are said once
};

QString arrow(const DependencyGraph &graph, const QList<int> &cycle)
{
    QStringList names;
    for (int i : cycle) {
        names << graph.nodes().at(i).name;
    }
    return names.join(QStringLiteral(" → "));
}

} // namespace

void checkAfterValue(const QJsonValue &after, const QString &path, QStringList &problems)
{
    const QString what = QStringLiteral("a run name or a list of them (runs, repeat groups, rounds or sweeps)");
    if (!after.isString() && !after.isArray()) {
        problems << expected(path, what, after);
        return;
    }
    const QJsonArray items = after.isString() ? QJsonArray{after} : after.toArray();
    QSet<QString> seen;
    for (int i = 0; i < items.size(); ++i) {
        const QString where = after.isString() ? path : QStringLiteral("%1[%2]").arg(path).arg(i);
        const QJsonValue v = items.at(i);
        if (!v.isString() || !isSafeRunName(v.toString())) {
            problems << expected(where, QStringLiteral("a run name"), v);
        } else if (seen.contains(v.toString())) {
            problems << QStringLiteral("%1: \"%2\" is already in the list").arg(where, v.toString());
        }
        seen.insert(v.toString());
    }
}

QStringList afterNames(const QJsonObject &spec)
{
    const QJsonValue after = spec.value(kAfter);
    if (after.isString()) {
        return {after.toString()};
    }
    QStringList names;
    for (const QJsonValue &v : after.toArray()) {
        names << v.toString();
    }
    return names;
}

QString runFolderPlace(const Experiment &experiment, const Device &d)
{
    if (d.isRemote()) { // a host's run folders are there; here only their mirrors
        return QStringLiteral("host %1").arg(d.host());
    }
    const ExperimentCluster *cluster = d.isSlurm() ? experiment.cluster(d.cluster()) : nullptr;
    if (!cluster || cluster->reach != QLatin1String("ssh") || cluster->runsRoot.isEmpty()) {
        return {};
    }
    // Over ssh the folders are read here, so they are the same only where
    // the cluster's runs_root holds the experiment's (LauncherRouter::problems).
    const QString root = QDir::cleanPath(experiment.effectiveRunsRoot());
    const QString theirs = QDir::cleanPath(cluster->runsRoot);
    if (root == theirs || root.startsWith(theirs + QLatin1Char('/'))) {
        return {};
    }
    return QStringLiteral("cluster %1").arg(cluster->name);
}

void checkDependencies(const Experiment &experiment, QStringList &out)
{
    QStringList problems;
    // Each problem once: the clients of rounds share their entry's "after".
    const auto said = qScopeGuard([&] {
        for (const QString &p : std::as_const(problems)) {
            if (!out.contains(p)) {
                out << p;
            }
        }
    });
    // Most files have no dependency at all: one look at each entry (a
    // repeat's runs share its spec) before expanding every run.
    const bool none = std::none_of(experiment.lanes.cbegin(), experiment.lanes.cend(), [](const ExperimentLane &lane) {
        return std::any_of(lane.runs.cbegin(), lane.runs.cend(), [](const ExperimentRun &run) {
            return !run.invalid && (run.spec.contains(kAfter) || QJsonDocument(run.spec).toJson().contains("{after."));
        });
    });
    if (none) {
        return;
    }
    QList<DependencyNode> nodes;
    QList<Origin> origins;
    bool any = false;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        for (const ExperimentRun &run : experiment.lanes.at(l).runs) {
            if (run.invalid) {
                continue;
            }
            const QString group = RunSpecView(run.spec).name();
            for (int i = 0; i < run.repeat; ++i) {
                const QJsonObject spec = expandRepeat(run.spec, i, run.repeat);
                DependencyNode node;
                node.name = RunSpecView(spec).name();
                node.group = group;
                node.rounds = run.rounds;
                node.round = run.round;
                node.aggregate = run.aggregate;
                node.after = afterNames(spec);
                any = any || !node.after.isEmpty() || QJsonDocument(spec).toJson().contains("{after.");
                nodes << node;
                const bool generated = !run.rounds.isEmpty() && !(run.round == 1 && !run.aggregate);
                origins << Origin{run.path, generated ? QString() : child(run.path, kAfter), l, spec, i == 0};
            }
        }
    }
    if (!any) {
        return;
    }
    QStringList sweeps;
    for (const SweepSpec &sweep : experiment.sweeps) {
        sweeps << sweep.name;
    }
    const DependencyGraph graph(nodes, sweeps);

    const auto laneOf = [&](int node) { return origins.at(node).lane; };
    const auto laneText = [&](int lane) {
        return QStringLiteral("lane %1 (%2)").arg(lane + 1).arg(experiment.lanes.at(lane).device.toString());
    };
    for (int i = 0; i < nodes.size(); ++i) {
        const DependencyNode &node = nodes.at(i);
        const Origin &origin = origins.at(i);
        if (!origin.firstOfEntry) {
            continue;
        }
        const QString place = runFolderPlace(experiment, experiment.lanes.at(origin.lane).device);
        for (int a = 0; a < node.after.size(); ++a) {
            const QString &name = node.after.at(a);
            const QString where = origin.afterPath.isEmpty() ? origin.path
                                  : origin.spec.value(kAfter).isString()
                                      ? origin.afterPath
                                      : QStringLiteral("%1[%2]").arg(origin.afterPath).arg(a);
            QList<int> members;
            const DependencyGraph::Kind kind = graph.resolve(name, &members);
            if (kind == DependencyGraph::Kind::None) {
                problems
                    << QStringLiteral("%1: no run, repeat group, rounds or sweep is named \"%2\"").arg(where, name);
                continue;
            }
            // The runs it reads from must be where its lane can read them.
            QList<int> lanes;
            for (int m : std::as_const(members)) {
                lanes << laneOf(m);
            }
            if (kind == DependencyGraph::Kind::Sweep) {
                for (const SweepSpec &sweep : experiment.sweeps) {
                    if (sweep.name != name) {
                        continue;
                    }
                    for (int l = 0; l < experiment.lanes.size(); ++l) {
                        if (sweep.lanes.isEmpty() || sweep.lanes.contains(l)) {
                            lanes << l;
                        }
                    }
                }
            }
            for (int l : std::as_const(lanes)) {
                const QString theirs = runFolderPlace(experiment, experiment.lanes.at(l).device);
                if (place.startsWith(QLatin1String("host ")) || theirs.startsWith(QLatin1String("host "))) {
                    // A host's run gets no inputs.json and would read its
                    // predecessors' paths on the wrong machine.
                    problems << QStringLiteral("%1: \"%2\" and %3: runs after other runs are not supported on a "
                                               "lane of a host over ssh yet (%4)")
                                    .arg(where, name, laneText(origin.lane), place.isEmpty() ? theirs : place);
                    break;
                }
                if (theirs != place) {
                    problems << QStringLiteral("%1: \"%2\" runs on %3, whose run folders (%4) %5 cannot read")
                                    .arg(where, name, laneText(l),
                                         theirs.isEmpty() ? QStringLiteral("the experiment's runs root") : theirs,
                                         laneText(origin.lane));
                    break;
                }
            }
        }
        // {after.NAME.FIELD}: one run it runs after.
        const RunSpecView view(origin.spec);
        QList<std::pair<QString, QString>> texts; // path, text
        if (view.isProgram()) {
            const QStringList argv = view.programArgv();
            for (int k = 0; k < argv.size(); ++k) {
                texts.append({QStringLiteral("%1.program.argv[%2]").arg(origin.path).arg(k), argv.at(k)});
            }
        } else {
            texts.append({child(origin.path, QStringLiteral("train.init_from")),
                          view.train().value(QStringLiteral("init_from")).toString()});
        }
        for (const auto &[path, text] : std::as_const(texts)) {
            for (const afterref::Ref &ref : afterref::find(text)) {
                QList<int> members;
                const DependencyGraph::Kind kind = graph.resolve(ref.name, &members);
                if (!node.after.contains(ref.name)) {
                    problems << QStringLiteral("%1: %2 names \"%3\", which is not in its \"after\"")
                                    .arg(path, afterref::placeholder(ref), ref.name);
                } else if (kind == DependencyGraph::Kind::Group || kind == DependencyGraph::Kind::Sweep) {
                    problems << QStringLiteral("%1: %2: \"%3\" is a %4 of several runs; name one of them")
                                    .arg(path, afterref::placeholder(ref), ref.name,
                                         kind == DependencyGraph::Kind::Group ? QStringLiteral("repeat group")
                                                                              : QStringLiteral("sweep"));
                } else if (!view.isProgram() && members.size() == 1
                           && RunSpecView(origins.at(members.first()).spec).isProgram()) {
                    problems << QStringLiteral("%1: %2: \"%3\" is a program run; a worker run starts only from a "
                                               "worker's checkpoint")
                                    .arg(path, afterref::placeholder(ref), ref.name);
                }
            }
        }
    }
    for (const QList<int> &cycle : graph.cycles()) {
        const Origin &origin = origins.at(cycle.first());
        problems << QStringLiteral("%1: its runs would wait for one another: %2 (each runs after the next)")
                        .arg(origin.afterPath.isEmpty() ? origin.path : origin.afterPath, arrow(graph, cycle));
    }
}

} // namespace trainyard
