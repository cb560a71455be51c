#pragma once

#include <QJsonObject>
#include <QString>

namespace trainyard {

class RunStore;

// The kept attempts of a store's runs: history is never written over. A run
// folder that holds results is an attempt; a fresh start of its run renames
// it (never copies, never deletes) to the first free NAME.attempt-N,
// N = 1, 2, ..., and starts in a new NAME. RunStore answers for these too
// (hasResults, archiveRunDir, nextAttemptName, attemptNumber).
class RunAttempts
{
public:
    explicit RunAttempts(const RunStore &store);

    // Whether ROOT/NAME is a folder (not a link) holding anything but
    // spec.json, notes.json, empty files and empty folders: the output of a
    // run that started (metrics.jsonl, worker.log, status.json, checkpoints).
    bool hasResults(const QString &name) const;
    // Renames ROOT/NAME to the first free NAME.attempt-N (its name in
    // `archivedName`). The new folder keeps the run's notes.json (the
    // archive keeps its copy). Refuses a folder that is a link (nothing is
    // renamed through one).
    bool archive(const QString &name, QString *archivedName, QString *error = nullptr) const;
    // Why ROOT/NAME holds the results of another spec than `spec`
    // (specidentity::difference, or "no readable spec.json"): they are not
    // `spec`'s, and its start keeps them as an attempt. Empty when the
    // folder holds no results or holds `spec`'s.
    QString otherSpec(const QString &name, const QJsonObject &spec) const;
    // The folder name archive() would give NAME now.
    QString nextName(const QString &name) const;
    // N of an archived attempt's folder name "BASE.attempt-N" (BASE a safe
    // run name, N from 1 to 999999; the name may so exceed a run name's 100
    // characters), else 0.
    static int number(const QString &folderName, QString *base = nullptr);

private:
    const RunStore &m_store;
};

} // namespace trainyard
