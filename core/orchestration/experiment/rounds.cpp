#include "orchestration/experiment/rounds.h"

#include "orchestration/experiment/dependencycheck.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/runspec/runspecview.h"

#include <QJsonArray>
#include <QSet>

namespace trainyard::rounds {

using namespace jsonchecks;

namespace {

const QString kRounds = QStringLiteral("rounds");
const QString kName = QStringLiteral("name");
const QString kCount = QStringLiteral("count");
const QString kClients = QStringLiteral("clients");
const QString kAggregate = QStringLiteral("aggregate");
const QString kAfter = QStringLiteral("after");
constexpr int kMaxCount = 1000;
constexpr int kMaxClients = 1000;

QString memberName(const QString &rounds, int round, const QJsonObject &spec)
{
    return QStringLiteral("%1-r%2-%3").arg(rounds).arg(round).arg(RunSpecView(spec).name());
}

QJsonObject inRound(const QJsonObject &spec, const QString &rounds, int round, const QStringList &after)
{
    QJsonObject out = spec;
    out.insert(kName, memberName(rounds, round, spec));
    const RunSpecView view(spec);
    QJsonObject train = view.train();
    train.insert(QStringLiteral("seed"), view.seed().value_or(1) + round - 1);
    out.insert(QStringLiteral("train"), train);
    if (!after.isEmpty()) {
        out.insert(kAfter, QJsonArray::fromStringList(after));
    }
    return out;
}

} // namespace

bool isEntry(const QJsonObject &entry)
{
    return entry.contains(kRounds);
}

QJsonObject read(const QJsonObject &entry, const QString &path, const ModelCatalogue *catalogue, QStringList &problems)
{
    const int before = int(problems.size());
    checkKeys(entry, keytables::roundsEntry(), path, problems);
    const QString rp = child(path, kRounds);
    const QJsonValue value = entry.value(kRounds);
    if (!value.isObject()) {
        problems << expected(rp, QStringLiteral("an object with name, count, clients and aggregate"), value);
        return {};
    }
    const QJsonObject o = value.toObject();
    checkKeys(o, keytables::rounds(), rp, problems);
    QJsonObject out;
    const QJsonValue name = o.value(kName);
    if (!name.isString() || !isSafeRunName(name.toString())) {
        problems << expected(child(rp, kName),
                             QStringLiteral("a name of 1–100 letters, digits or ._+@- not starting with '.' (its runs "
                                            "are named NAME-rK-MEMBER)"),
                             name);
    }
    out.insert(kName, name);
    if (!o.contains(kCount)) {
        problems << child(rp, kCount) + QStringLiteral(": missing (expected an integer from 1 to %1)").arg(kMaxCount);
    }
    checkInt(o, kCount, rp, 1, kMaxCount, problems);
    out.insert(kCount, o.value(kCount));

    // The members: run specs without "after" (the rounds make it) or "repeat".
    const auto member = [&](const QJsonValue &v, const QString &where) {
        if (!v.isObject()) {
            problems << expected(where, QStringLiteral("a run spec object"), v);
            return QJsonObject();
        }
        const QJsonObject spec = v.toObject();
        for (const QString &key : {kAfter, QStringLiteral("repeat")}) {
            if (spec.contains(key)) {
                problems << QStringLiteral("%1: a member of rounds has no %2 (the rounds say which runs come "
                                           "after which, and how often)")
                                .arg(child(where, key), key);
            }
        }
        QJsonObject clean = spec;
        clean.remove(kAfter);
        clean.remove(QStringLiteral("repeat"));
        problems << validateRunSpec(clean, where, false, catalogue);
        return withDefaults(clean);
    };
    const QJsonValue clients = o.value(kClients);
    const QString cp = child(rp, kClients);
    QJsonArray memberSpecs;
    QSet<QString> names;
    if (!clients.isArray() || clients.toArray().isEmpty() || clients.toArray().size() > kMaxClients) {
        problems << expected(cp, QStringLiteral("a list of 1 to %1 run specs").arg(kMaxClients), clients);
    } else {
        const QJsonArray items = clients.toArray();
        for (int c = 0; c < items.size(); ++c) {
            const QString where = QStringLiteral("%1[%2]").arg(cp).arg(c);
            const QJsonObject spec = member(items.at(c), where);
            const QString n = RunSpecView(spec).name();
            if (!n.isEmpty() && names.contains(n)) {
                problems << QStringLiteral("%1.name: \"%2\" is already a member's name").arg(where, n);
            }
            names.insert(n);
            memberSpecs << spec;
        }
    }
    out.insert(kClients, memberSpecs);
    const QString ap = child(rp, kAggregate);
    if (!o.contains(kAggregate)) {
        problems << ap + QStringLiteral(": missing (expected the run spec that combines each round's clients)");
    } else {
        const QJsonObject aggregate = member(o.value(kAggregate), ap);
        const QString n = RunSpecView(aggregate).name();
        if (!n.isEmpty() && names.contains(n)) {
            problems << QStringLiteral("%1.name: \"%2\" is already a client's name").arg(ap, n);
        }
        out.insert(kAggregate, aggregate);
    }
    if (o.contains(kAfter)) {
        checkAfterValue(o.value(kAfter), child(rp, kAfter), problems);
        out.insert(kAfter, QJsonArray::fromStringList(afterNames(o)));
    }
    return problems.size() == before ? out : QJsonObject();
}

int readEntry(const QJsonObject &entry, const QString &path, const ModelCatalogue *catalogue, int room,
              const std::function<bool(const QString &, const QString &)> &claim, Experiment &experiment,
              ExperimentLane &lane, QStringList &problems)
{
    const QJsonObject definition = read(entry, path, catalogue, problems);
    if (definition.isEmpty()) {
        return 0;
    }
    const QString where = child(path, kRounds);
    if (runCount(definition) > room) {
        problems << QStringLiteral("%1.count: the experiment would hold more than its limit of runs").arg(where);
        return -1;
    }
    if (!named(experiment.rounds, name(definition)).isEmpty()) {
        problems << QStringLiteral("%1.name: rounds \"%2\" are already defined").arg(where, name(definition));
    }
    experiment.rounds << definition;
    int added = 0;
    for (const Member &m : expand(definition)) {
        if (!claim(RunSpecView(m.spec).name(), where)) {
            break;
        }
        ExperimentRun run;
        run.spec = m.spec;
        run.path = where;
        run.rounds = name(definition);
        run.round = m.round;
        run.aggregate = m.aggregate;
        lane.runs << run;
        ++added;
    }
    return added;
}

QJsonObject named(const QList<QJsonObject> &definitions, const QString &rounds)
{
    for (const QJsonObject &definition : definitions) {
        if (name(definition) == rounds) {
            return definition;
        }
    }
    return {};
}

int spanAt(const QList<QJsonObject> &definitions, const QList<ExperimentRun> &runs, int index)
{
    const ExperimentRun &first = runs.at(index);
    if (first.rounds.isEmpty()) {
        return 0;
    }
    const QList<Member> members = expand(named(definitions, first.rounds));
    if (members.isEmpty() || index + members.size() > runs.size()) {
        return 0;
    }
    for (int k = 0; k < members.size(); ++k) {
        const ExperimentRun &run = runs.at(index + k);
        if (run.rounds != first.rounds || run.repeat != 1 || run.spec != members.at(k).spec) {
            return 0;
        }
    }
    return int(members.size());
}

QString name(const QJsonObject &definition)
{
    return definition.value(kName).toString();
}

int count(const QJsonObject &definition)
{
    return definition.value(kCount).toInt();
}

int runCount(const QJsonObject &definition)
{
    return count(definition) * int(definition.value(kClients).toArray().size() + 1);
}

QList<QJsonObject> memberSpecs(const QJsonObject &definition)
{
    QList<QJsonObject> specs;
    for (const QJsonValue &client : definition.value(kClients).toArray()) {
        specs << client.toObject();
    }
    specs << definition.value(kAggregate).toObject();
    return specs;
}

QJsonObject withMembers(const QJsonObject &definition, const std::function<QJsonObject(const QJsonObject &)> &change)
{
    QJsonObject out = definition;
    QJsonArray clients;
    for (const QJsonValue &client : definition.value(kClients).toArray()) {
        clients << change(client.toObject());
    }
    out.insert(kClients, clients);
    out.insert(kAggregate, change(definition.value(kAggregate).toObject()));
    return out;
}

QList<Member> expand(const QJsonObject &definition)
{
    QList<Member> out;
    const QString rounds = name(definition);
    const QJsonObject aggregate = definition.value(kAggregate).toObject();
    QStringList firstAfter;
    for (const QJsonValue &v : definition.value(kAfter).toArray()) {
        firstAfter << v.toString();
    }
    for (int k = 1; k <= count(definition); ++k) {
        const QStringList clientsAfter = k == 1 ? firstAfter : QStringList{memberName(rounds, k - 1, aggregate)};
        QStringList clientNames;
        for (const QJsonValue &client : definition.value(kClients).toArray()) {
            const QJsonObject spec = inRound(client.toObject(), rounds, k, clientsAfter);
            clientNames << RunSpecView(spec).name();
            out << Member{spec, k, false};
        }
        out << Member{inRound(aggregate, rounds, k, clientNames), k, true};
    }
    return out;
}

} // namespace trainyard::rounds
