#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include "orchestration/experiment/trustreach.h"

namespace trainyard {

class Experiment;

// The experiment files this user allowed to run commands. A program run
// ("program" in a run spec) executes whatever command its file names, and so
// do a cluster's worker, ssh_config and sbatch extra_args
// (Experiment::commandLines), so a file from elsewhere must never run one by
// surprise: `trainyard run` refuses it without --trust, Session::load refuses
// it, and the app asks once, showing every command line.
// What is trusted is one version of a file in its folder
// (Experiment::versionHash) with the bytes of the local files its keys
// point at that can make something run (reachedFiles: ssh_configs and what
// they Include, a local cluster's worker): a file edited since, copied
// elsewhere, or one of those files changed, asks again. Trust stops at the
// scripts the commands start (coverage() says so). Files Trainyard itself
// saves are trusted as they are written.
//
// Stored as JSON in the user's config folder
// (~/.config/trainyard/trusted-experiments.json):
//   {"version": 1, "trusted": [{"sha256": "…", "path": "…", "trusted_at": "…",
//                               "files": [{"path": "…", "sha256": "…"}]}]}
// One version per file path (a newer one replaces it), at most 2000 files.
// A missing or unreadable list trusts nothing; a damaged one is never
// overwritten (trust() then fails, saying so).
class TrustList
{
public:
    explicit TrustList(QString path = defaultPath());

    static QString defaultPath();

    // Whether this version of a file's bytes was trusted; what may run is
    // isTrusted(experiment), which also compares the files it points at.
    bool isTrusted(const QByteArray &sha256Hex) const;
    // This version of `experiment`'s file with every file it points at as
    // trusted; otherwise false, with `why` naming the first file that changed
    // ("~/lab/ssh_config (host lab's ssh_config) changed since you trusted
    // …"), empty when the file's version itself was never trusted.
    bool isTrusted(const Experiment &experiment, QString *why = nullptr) const;
    // Adds one version of the file at `path` (kept to show the user what it
    // was) with the hashes of the files it points at (`reached`).
    bool trust(const QByteArray &sha256Hex, const QString &path, const QList<ReachedFile> &reached,
               QString *error = nullptr);
    // This version of `experiment`'s file, with its reachedFiles() now.
    bool trust(const Experiment &experiment, QString *error = nullptr);
    // What trusting `experiment` covers and where trust stops, for the
    // question and `trainyard trust`.
    static QString coverage(const Experiment &experiment);

    // One trusted version, as the list holds it.
    struct Entry
    {
        QByteArray sha256;
        QString path; // absolute, as trusted
        QDateTime trustedAt;
        QList<ReachedFile> files; // what its keys pointed at, as trusted (`what` empty)
    };
    // Every entry, oldest first; empty with `error` when the list cannot be read.
    QList<Entry> entries(QString *error = nullptr) const;
    // Forgets what is trusted of the file at `path` (absolute or relative
    // to the working folder; it need not exist any more): `removed` gets
    // how many entries went (0 or 1). False with `error` when the list
    // cannot be read or written (a damaged one is left as it is).
    bool revoke(const QString &path, int *removed, QString *error = nullptr);

    // Empty when `experiment` runs no command of its own or it is trusted
    // (isTrusted); otherwise why it may not run: the file or the changed file
    // it points at, every command line, and what trusting it covers.
    QString refusal(const Experiment &experiment) const;

private:
    QString m_path;
};

// Saves `experiment` as a file of this user's (the app's Save and autosave):
// the version written is trusted when it runs commands, since its commands
// are the ones the user put on the board.
bool saveOwnExperiment(const Experiment &experiment, const QString &path, QString *error);

} // namespace trainyard
