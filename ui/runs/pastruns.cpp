#include "runs/pastruns.h"

#include "runstore/runstore.h"

#include <QDir>
#include <QFileInfo>

namespace trainyard {

void PastRuns::refresh(const QString &runsRoot, const QString &experiment)
{
    m_runs.clear();
    m_experiments.clear();
    QHash<QString, QList<RunRecord>> byRoot;
    const auto take = [&](const QString &root, const QString &name,
                          const std::function<bool(const QString &)> &include) {
        QList<RunRecord> runs = m_byRoot.take(root);
        RunStore(root).readHistory(&runs, include);
        for (const RunRecord &run : std::as_const(runs)) {
            m_runs.append(run);
            m_experiments.append(name);
        }
        byRoot.insert(root, std::move(runs));
    };
    const QString current = QFileInfo(runsRoot).canonicalFilePath();
    for (const QString &root : std::as_const(m_roots)) {
        const QDir dir(root);
        for (const QFileInfo &experimentDir : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            if (experimentDir.canonicalFilePath() == current) {
                continue; // the open experiment's runs are the live rows
            }
            take(experimentDir.absoluteFilePath(), experimentDir.fileName(), {});
        }
    }
    // The open experiment's runs are the live rows; their earlier attempts are its history.
    if (!runsRoot.isEmpty()) {
        take(runsRoot, experiment, [](const QString &name) { return RunStore::attemptNumber(name) > 0; });
    }
    m_byRoot = std::move(byRoot);
}

} // namespace trainyard
