#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard {

class Experiment;

// The experiment files this user allowed to run commands. A program run
// ("program" in a run spec) executes whatever command its file names, and so
// do a cluster's worker, ssh_config and sbatch extra_args
// (Experiment::commandLines), so a file from elsewhere must never run one by
// surprise: `trainyard run` refuses it without --trust, Session::load refuses
// it, and the app asks once, showing every command line.
// What is trusted is one version of a file in its folder
// (Experiment::versionHash): a file edited since, or copied elsewhere, asks
// again. Files Trainyard itself saves are trusted as
// they are written.
//
// Stored as JSON in the user's config folder
// (~/.config/trainyard/trusted-experiments.json):
//   {"version": 1, "trusted": [{"sha256": "…", "path": "…", "trusted_at": "…"}]}
// One version per file path (a newer one replaces it), at most 2000 files.
// A missing or unreadable list trusts nothing; a damaged one is never
// overwritten (trust() then fails, saying so).
class TrustList
{
public:
    explicit TrustList(QString path = defaultPath());

    static QString defaultPath();

    bool isTrusted(const QByteArray &sha256Hex) const;
    // Adds one version; `path` is kept to show the user what it was.
    bool trust(const QByteArray &sha256Hex, const QString &path, QString *error = nullptr);

    // One trusted version, as the list holds it.
    struct Entry
    {
        QByteArray sha256;
        QString path; // absolute, as trusted
        QDateTime trustedAt;
    };
    // Every entry, oldest first; empty with `error` when the list cannot be read.
    QList<Entry> entries(QString *error = nullptr) const;
    // Forgets what is trusted of the file at `path` (absolute or relative
    // to the working folder; it need not exist any more): `removed` gets
    // how many entries went (0 or 1). False with `error` when the list
    // cannot be read or written (a damaged one is left as it is).
    bool revoke(const QString &path, int *removed, QString *error = nullptr);

    // Empty when `experiment` runs no command of its own or its content is trusted;
    // otherwise why it may not run: the file and every command line.
    QString refusal(const Experiment &experiment) const;

private:
    QString m_path;
};

// Saves `experiment` as a file of this user's (the app's Save and autosave):
// the version written is trusted when it runs commands, since its commands
// are the ones the user put on the board.
bool saveOwnExperiment(const Experiment &experiment, const QString &path, QString *error);

} // namespace trainyard
