#include "orchestration/dependencies/runinputs.h"

#include "orchestration/dependencies/dependencies.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/records/runrecord.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/jsonfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

#include <unistd.h>

namespace trainyard {

namespace {

const QString kInitFrom = QStringLiteral("init_from");

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue();
}

} // namespace

RunInputs::RunInputs(const Dependencies *dependencies, const RunRegistry *runs, const MetricStore *metrics)
    : m_dependencies(dependencies)
    , m_runs(runs)
    , m_metrics(metrics)
{
}

QString RunInputs::path(const QString &runDir)
{
    return runDir + QStringLiteral("/inputs.json");
}

QString RunInputs::checkpointOf(const RunInfo &run)
{
    // What the run said is a claim: a regular file of this user's inside
    // the run's own folder, no link followed, named in characters no shell
    // or option parser reads as anything but a path; else nothing. It is
    // substituted into a command the trust list showed as a placeholder.
    static const QRegularExpression plain(QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9._+@=,%/-]+")));
    if (run.checkpoint.isEmpty() || QDir::isRelativePath(run.checkpoint) || !plain.match(run.checkpoint).hasMatch()
        || !QDir::cleanPath(run.checkpoint).startsWith(QDir::cleanPath(run.runDir) + QLatin1Char('/'))) {
        return {};
    }
    // No link on the way either: a checkpoints/ that links to another
    // run's folder would hand that run's file over as this one's.
    const QFileInfo info(run.checkpoint);
    const QString inside = QDir(run.runDir).relativeFilePath(QDir::cleanPath(run.checkpoint));
    return info.isFile() && info.ownerId() == ::getuid()
                   && info.canonicalFilePath() == QDir(QDir(run.runDir).canonicalPath()).filePath(inside)
               ? run.checkpoint
               : QString();
}

QJsonObject RunInputs::inputs(RunId id) const
{
    QJsonArray list;
    for (const auto &[name, ids] : m_dependencies->predecessorsByName(id)) {
        for (RunId p : ids) {
            const RunInfo *r = m_runs->find(p);
            if (!r) {
                continue;
            }
            const RunRecord record = RunRecord::live(*r, *m_metrics);
            QJsonObject summary{{QStringLiteral("state"), runStateName(r->state)},
                                {QStringLiteral("step"), r->step >= 0 ? QJsonValue(r->step) : QJsonValue()},
                                {QStringLiteral("epoch"), r->epoch >= 0 ? QJsonValue(r->epoch) : QJsonValue()},
                                {QStringLiteral("loss"), number(r->loss)},
                                {QStringLiteral("wall"), number(r->wall)}};
            for (auto it = record.evals.constBegin(); it != record.evals.constEnd(); ++it) {
                summary.insert(it.key(), number(it->last));
            }
            // What the run put in run.summary (the module's), its own words last.
            for (auto it = r->summary.constBegin(); it != r->summary.constEnd(); ++it) {
                summary.insert(it.key(), number(it.value()));
            }
            const QString checkpoint = checkpointOf(*r);
            list.append(QJsonObject{{QStringLiteral("after"), name},
                                    {QStringLiteral("name"), r->name},
                                    {QStringLiteral("dir"), r->runDir},
                                    {QStringLiteral("checkpoint"), checkpoint.isEmpty() ? QJsonValue() : checkpoint},
                                    {QStringLiteral("summary"), summary}});
        }
    }
    return QJsonObject{{QStringLiteral("inputs"), list}};
}

afterref::Values RunInputs::values(RunId id) const
{
    afterref::Values out;
    const auto add = [&](const QString &name, const RunInfo &r) {
        out.insert(name + QStringLiteral(".dir"), r.runDir);
        if (const QString checkpoint = checkpointOf(r); !checkpoint.isEmpty()) {
            out.insert(name + QStringLiteral(".checkpoint"), checkpoint);
        }
    };
    for (const auto &[name, ids] : m_dependencies->predecessorsByName(id)) {
        for (RunId p : ids) {
            if (const RunInfo *r = m_runs->find(p)) {
                add(r->name, *r);
                if (ids.size() == 1) {
                    add(name, *r);
                }
            }
        }
    }
    return out;
}

QString RunInputs::missing(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r || r->after.isEmpty()) {
        return {};
    }
    const afterref::Values given = values(id);
    const RunSpecView view(r->spec);
    QStringList texts;
    if (view.isProgram()) {
        texts = view.programArgv();
    } else {
        texts << view.train().value(kInitFrom).toString();
    }
    for (const QString &text : std::as_const(texts)) {
        for (const afterref::Ref &ref : afterref::find(text)) {
            if (given.contains(afterref::key(ref))) {
                continue;
            }
            const RunId p = m_runs->findByName(ref.name);
            const bool ran = p != 0 && !m_runs->find(p)->checkpoint.isEmpty();
            return ref.field == QLatin1String("checkpoint") && ran
                       ? QStringLiteral("%1: the checkpoint %2 reported is not a regular file any more")
                             .arg(afterref::placeholder(ref), ref.name)
                   : ref.field == QLatin1String("checkpoint")
                       ? QStringLiteral("%1: %2 reported no checkpoint").arg(afterref::placeholder(ref), ref.name)
                       : QStringLiteral("%1: %2 is not a run it runs after").arg(afterref::placeholder(ref), ref.name);
        }
    }
    return {};
}

QJsonObject RunInputs::resolvedSpec(RunId id, const QJsonObject &spec) const
{
    QJsonObject train = spec.value(QStringLiteral("train")).toObject();
    const QString from = train.value(kInitFrom).toString();
    if (RunSpecView(spec).isProgram() || afterref::find(from).isEmpty()) {
        return spec;
    }
    QString resolved;
    if (!afterref::substitute(from, values(id), &resolved, nullptr)) {
        return spec; // missing() refused the start first
    }
    train.insert(kInitFrom, resolved);
    QJsonObject out = spec;
    out.insert(QStringLiteral("train"), train);
    return out;
}

bool RunInputs::write(RunId id, const QString &runDir, QString *error) const
{
    return writeJsonFile(path(runDir), inputs(id), error);
}

} // namespace trainyard
