#pragma once

#include "runstore/runrecord.h"

#include <QHash>
#include <QList>
#include <QStringList>

namespace trainyard {

/// The past runs the runs table shows: those of every experiment folder in
/// the history roots but the open experiment's, and the open experiment's
/// earlier attempts (kept by a new attempt: RunStore::archiveRunDir), read with
/// RunStore::readHistory. A refresh reads only what each run's metrics.jsonl
/// gained since the last one.
class PastRuns
{
public:
    /// Folders holding past experiments' runs roots (read on refresh()).
    void setRoots(const QStringList &roots) { m_roots = roots; }
    QStringList roots() const { return m_roots; }
    /// Reads the runs again; `runsRoot` and `experiment` are the open
    /// experiment's (empty: none).
    void refresh(const QString &runsRoot, const QString &experiment);

    int size() const { return int(m_runs.size()); }
    /// Past run `i`, in the order of the roots, experiments (by name) and runs.
    const RunRecord &run(int i) const { return m_runs.at(i); }
    /// The name of the experiment of past run `i` (its folder's name).
    QString experiment(int i) const { return m_experiments.at(i); }
    /// The tags and note of past run `i` changed (the run details saved them).
    void setNotes(int i, const RunNotes &notes) { m_runs[i].notes = notes; }

private:
    QStringList m_roots;
    QList<RunRecord> m_runs; ///< implicitly shared with m_byRoot
    QStringList m_experiments;
    QHash<QString, QList<RunRecord>> m_byRoot; ///< runs root -> its past runs, as read last time
};

} // namespace trainyard
