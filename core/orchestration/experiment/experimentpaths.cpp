#include "orchestration/experiment/experimentpaths.h"

#include "orchestration/experiment/jsonchecks.h"

#include <QDir>
#include <QJsonArray>

#include <functional>

namespace trainyard::experimentpaths {

namespace {

// Visits one path value: its JSON path, the value, and where it is read
// (empty: here; else the lane's device on another machine). Returns the
// value to keep.
using Visit = std::function<QJsonValue(const QString &jsonPath, const QJsonValue &value, const QString &elsewhere)>;

// A lane's device that names another machine ("ssh:HOST/...", "slurm:CLUSTER/...").
QString elsewhereOf(const QJsonValue &device)
{
    const QString d = device.toString();
    return d.startsWith(QLatin1String("ssh:")) || d.startsWith(QLatin1String("slurm:")) ? d : QString();
}

QJsonObject visitSpec(QJsonObject spec, const QString &path, const QString &elsewhere, const Visit &visit)
{
    for (const QString &key : specPathKeys()) {
        const QString section = key.section(QLatin1Char('.'), 0, 0);
        const QString name = key.section(QLatin1Char('.'), 1);
        QJsonObject o = spec.value(section).toObject();
        if (!spec.value(section).isObject() || !o.contains(name)) {
            continue;
        }
        o.insert(name, visit(jsonchecks::child(jsonchecks::child(path, section), name), o.value(name), elsewhere));
        spec.insert(section, o);
    }
    // A rounds entry: its clients and aggregate are run specs.
    if (spec.value(QStringLiteral("rounds")).isObject()) {
        const QString rp = jsonchecks::child(path, QStringLiteral("rounds"));
        QJsonObject r = spec.value(QStringLiteral("rounds")).toObject();
        QJsonArray clients = r.value(QStringLiteral("clients")).toArray();
        for (int i = 0; i < clients.size(); ++i) {
            if (clients.at(i).isObject()) {
                clients[i] = visitSpec(clients.at(i).toObject(), QStringLiteral("%1.clients[%2]").arg(rp).arg(i),
                                       elsewhere, visit);
            }
        }
        if (r.value(QStringLiteral("clients")).isArray()) {
            r.insert(QStringLiteral("clients"), clients);
        }
        if (r.value(QStringLiteral("aggregate")).isObject()) {
            r.insert(QStringLiteral("aggregate"),
                     visitSpec(r.value(QStringLiteral("aggregate")).toObject(),
                               jsonchecks::child(rp, QStringLiteral("aggregate")), elsewhere, visit));
        }
        spec.insert(QStringLiteral("rounds"), r);
    }
    return spec;
}

// A sweep's base and its space's values of a path key ("data.path": {"values": [...]}).
QJsonObject visitSweep(QJsonObject sweep, const QString &path, const QString &elsewhere, const Visit &visit)
{
    if (sweep.value(QStringLiteral("base")).isObject()) {
        sweep.insert(QStringLiteral("base"),
                     visitSpec(sweep.value(QStringLiteral("base")).toObject(),
                               jsonchecks::child(path, QStringLiteral("base")), elsewhere, visit));
    }
    if (!sweep.value(QStringLiteral("space")).isObject()) {
        return sweep;
    }
    QJsonObject space = sweep.value(QStringLiteral("space")).toObject();
    for (const QString &key : specPathKeys()) {
        QJsonObject dimension = space.value(key).toObject();
        if (!dimension.value(QStringLiteral("values")).isArray()) {
            continue;
        }
        QJsonArray values = dimension.value(QStringLiteral("values")).toArray();
        for (int i = 0; i < values.size(); ++i) {
            values[i] = visit(QStringLiteral("%1.space.%2.values[%3]").arg(path, key).arg(i), values.at(i), elsewhere);
        }
        dimension.insert(QStringLiteral("values"), values);
        space.insert(key, dimension);
    }
    sweep.insert(QStringLiteral("space"), space);
    return sweep;
}

QJsonObject visitAll(QJsonObject top, const Visit &visit)
{
    if (top.contains(QStringLiteral("runs_root"))) {
        top.insert(QStringLiteral("runs_root"),
                   visit(QStringLiteral("runs_root"), top.value(QStringLiteral("runs_root")), QString()));
    }
    // ssh -F reads a cluster's or host's ssh_config here.
    for (const QString &list : {QStringLiteral("clusters"), QStringLiteral("hosts")}) {
        if (!top.value(list).isArray()) {
            continue;
        }
        QJsonArray items = top.value(list).toArray();
        for (int i = 0; i < items.size(); ++i) {
            QJsonObject o = items.at(i).toObject();
            if (o.contains(QStringLiteral("ssh_config"))) {
                o.insert(QStringLiteral("ssh_config"), visit(QStringLiteral("%1[%2].ssh_config").arg(list).arg(i),
                                                             o.value(QStringLiteral("ssh_config")), QString()));
                items[i] = o;
            }
        }
        top.insert(list, items);
    }
    QJsonArray lanes = top.value(QStringLiteral("lanes")).toArray();
    QStringList laneElsewhere;
    for (int l = 0; l < lanes.size(); ++l) {
        QJsonObject lane = lanes.at(l).toObject();
        const QString elsewhere = elsewhereOf(lane.value(QStringLiteral("device")));
        laneElsewhere << elsewhere;
        if (!lanes.at(l).isObject() || !lane.value(QStringLiteral("runs")).isArray()) {
            continue;
        }
        QJsonArray runs = lane.value(QStringLiteral("runs")).toArray();
        for (int r = 0; r < runs.size(); ++r) {
            if (runs.at(r).isObject()) {
                runs[r] = visitSpec(runs.at(r).toObject(), QStringLiteral("lanes[%1].runs[%2]").arg(l).arg(r),
                                    elsewhere, visit);
            }
        }
        lane.insert(QStringLiteral("runs"), runs);
        lanes[l] = lane;
    }
    if (top.value(QStringLiteral("lanes")).isArray()) {
        top.insert(QStringLiteral("lanes"), lanes);
    }
    QJsonArray sweeps = top.value(QStringLiteral("sweeps")).toArray();
    for (int s = 0; s < sweeps.size(); ++s) {
        if (!sweeps.at(s).isObject()) {
            continue;
        }
        const QJsonObject sweep = sweeps.at(s).toObject();
        // Its trials run on its lanes (all of them when it names none): the
        // first on another machine decides.
        QString elsewhere;
        const QJsonArray named = sweep.value(QStringLiteral("lanes")).toArray();
        for (int l = 0; l < laneElsewhere.size(); ++l) {
            const bool onIt = !sweep.contains(QStringLiteral("lanes")) || named.contains(QJsonValue(l));
            if (onIt && elsewhere.isEmpty()) {
                elsewhere = laneElsewhere.at(l);
            }
        }
        sweeps[s] = visitSweep(sweep, QStringLiteral("sweeps[%1]").arg(s), elsewhere, visit);
    }
    if (top.value(QStringLiteral("sweeps")).isArray()) {
        top.insert(QStringLiteral("sweeps"), sweeps);
    }
    return top;
}

// A value the rule applies to: a non-empty string that is no placeholder
// ("{after.NAME.checkpoint}", filled in when the run starts).
bool isPathText(const QJsonValue &value)
{
    return value.isString() && !value.toString().isEmpty() && !value.toString().startsWith(QLatin1Char('{'));
}

QString resolved(const QString &text, const QString &folder)
{
    QString path = text;
    if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/"))) {
        path = QDir::homePath() + path.mid(1);
    }
    return QDir::cleanPath(QDir::isRelativePath(path) ? QDir(folder).filePath(path) : path);
}

} // namespace

QStringList specPathKeys()
{
    return {QStringLiteral("data.path"), QStringLiteral("model.path"), QStringLiteral("train.init_from"),
            QStringLiteral("program.cwd")};
}

QJsonObject resolve(const QJsonObject &top, const QString &folder, QHash<QString, QString> *written,
                    QStringList *problems)
{
    return visitAll(top, [&](const QString &jsonPath, const QJsonValue &value, const QString &elsewhere) {
        if (!isPathText(value)) {
            return value;
        }
        const QString text = value.toString();
        if (!elsewhere.isEmpty()) {
            // Read on that machine, where this file's folder means nothing.
            if (QDir::isRelativePath(text) && problems) {
                *problems << jsonchecks::expected(
                    jsonPath,
                    QStringLiteral("an absolute path on %1 (a run there takes its paths as they are there)")
                        .arg(elsewhere.section(QLatin1Char('/'), 0, 0)),
                    value);
            }
            return value;
        }
        const QString path = resolved(text, folder);
        if (path != text && written) {
            written->insert(path, text);
        }
        return QJsonValue(path);
    });
}

QJsonObject restoreWritten(const QJsonObject &top, const QString &folder, const QHash<QString, QString> &written)
{
    if (written.isEmpty()) {
        return top;
    }
    return visitAll(top, [&](const QString &, const QJsonValue &value, const QString &elsewhere) {
        if (!elsewhere.isEmpty() || !isPathText(value)) {
            return value;
        }
        const auto it = written.constFind(value.toString());
        return it != written.cend() && resolved(*it, folder) == value.toString() ? QJsonValue(*it) : value;
    });
}

} // namespace trainyard::experimentpaths
