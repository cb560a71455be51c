#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace trainyard {

struct SweepSpec;

/// What a sweep keeps of itself in the runs root: which trials it placed
/// (their run folders hold the rest: states, curves) and what it decided of
/// each. Early stopping's records are not here: they are rebuilt from the
/// trials' metrics (one fact in one place).
struct SweepState
{
    struct Trial
    {
        int index = -1;
        QString run; ///< its run folder's name
        int lane = 0;
        bool paused = false;  ///< paused by the sweep at a rung (resumable)
        bool stopped = false; ///< stopped by the sweep or by hand, for good
        QString reason;
    };
    QString specHash; ///< SweepStateFile::specHash of the spec that placed them
    bool paused = false;
    bool stopped = false;
    QList<Trial> trials;
};

/// `<runs_root>/.sweeps/<name>.json`: written atomically (QSaveFile), read
/// back as every file of the runs root is (a regular file, the user's, no
/// link followed, at most 4 MiB), every problem named by its JSON path.
class SweepStateFile
{
public:
    static QString path(const QString &runsRoot, const QString &sweep);
    /// SHA-256 (hex) of the spec's JSON: whether the saved trials are this spec's.
    static QString specHash(const SweepSpec &spec);
    /// nullopt with `error` empty when there is none; nullopt with `error` saying why when refused.
    static std::optional<SweepState> read(const QString &path, QString *error);
    static bool write(const QString &path, const SweepState &state, QString *error);
};

} // namespace trainyard
