#include "ui/plot/plotfeeder.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/metricrecord.h"
#include "ui/plot/plotwidget.h"

#include <QFileInfo>

namespace trainyard {

PlotFeeder::PlotFeeder(PlotWidget *plot, QObject *parent)
    : QObject(parent)
    , m_plot(plot)
{
}

void PlotFeeder::setSource(ExperimentDocument *document)
{
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    m_metrics = document ? document->metrics() : nullptr;
    m_selection.clear();
    m_pinned.clear();
    m_pastIds.clear();
    m_past.clear();
    m_plot->clearRuns();
    if (m_document) {
        connect(m_document, &ExperimentDocument::runRemoved, this, [this](RunId id) {
            m_selection.removeAll(id);
            m_plot->removeRun(QString::number(id));
        });
        connect(m_document, &ExperimentDocument::reset, this, [this] { setSelection({}); });
    }
}

void PlotFeeder::setSelection(const QList<RunId> &ids)
{
    if (!m_document || !m_metrics) {
        return;
    }
    for (RunId id : std::as_const(m_selection)) {
        if (!ids.contains(id)) {
            m_plot->removeRun(QString::number(id));
        }
    }
    const QList<RunId> before = m_selection;
    m_selection.clear();
    for (RunId id : ids) {
        if (!m_document->hasRun(id)) {
            continue;
        }
        m_selection.append(id);
        if (!before.contains(id)) {
            const RunInfo run = m_document->run(id);
            m_plot->addRun(QString::number(id), run.name, run.repeatCount > 1 ? run.group : run.name,
                           CurveSource{m_metrics, id});
        }
    }
    applySelection();
}

void PlotFeeder::applySelection()
{
    QStringList keys;
    for (RunId id : std::as_const(m_selection)) {
        keys.append(QString::number(id));
    }
    for (const QString &dir : std::as_const(m_pinned)) {
        keys.append(pastRunKey(dir));
    }
    m_plot->setSelectedRuns(keys);
}

QString PlotFeeder::pastRunKey(const QString &runDir)
{
    return QStringLiteral("past:") + runDir;
}

bool PlotFeeder::pinPastRun(const QString &runDir, const QString &label, QString *error)
{
    if (m_pinned.contains(runDir)) {
        return true;
    }
    // The one reader of run folders, into a store as the app keeps curves
    // (as `trainyard export` does); a finished run is read once.
    const QFileInfo dir(runDir);
    const RunStore store(dir.absolutePath());
    const RunId id = m_nextPastId++;
    store.readMetrics(dir.fileName(), 0, [&](const MetricRecord &record) { m_past.add(id, record); });
    const CurveSource source{&m_past, id};
    if (source.metrics().isEmpty()) {
        m_past.removeRun(id);
        if (error) {
            *error = tr("%1 has no curve to plot (no metric lines in its metrics.jsonl)").arg(runDir);
        }
        return false;
    }
    const QString key = pastRunKey(runDir);
    m_plot->addRun(key, label, key, source, RunOrigin::Past);
    m_pinned.append(runDir);
    m_pastIds.insert(runDir, id);
    applySelection();
    return true;
}

void PlotFeeder::unpinPastRun(const QString &runDir)
{
    if (m_pinned.removeAll(runDir) > 0) {
        m_plot->removeRun(pastRunKey(runDir));
        m_past.removeRun(m_pastIds.take(runDir));
        applySelection();
    }
}

} // namespace trainyard
