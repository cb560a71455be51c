#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QHash>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace trainyard {

/// Keeps each worker program's catalogue so that `trainyard run` and the
/// app's start do not wait for `trainyard-worker --list-models` every time:
/// in memory for the life of the process, and on disk as one small JSON file
/// per worker (the worker's answer as it gave it) under a cache folder.
///
/// An entry is keyed by the worker's canonical path, size and modification
/// time: a rebuilt or replaced worker misses, and its stale file is removed;
/// a file that is not what this class writes (corrupt, truncated, another
/// format) is removed too. Either way the loader runs the worker again and
/// stores a fresh entry. Used from one thread.
class ModelCatalogueCache
{
public:
    /// `directory` empty: memory only.
    explicit ModelCatalogueCache(const QString &directory);

    /// The process's cache, on disk under QStandardPaths::CacheLocation
    /// (~/.cache/trainyard): what the app and `trainyard run` use.
    static ModelCatalogueCache &shared();
    static QString defaultDirectory();

    QString directory() const { return m_directory; }

    /// The catalogue of `program` if a fresh copy is held (memory, then
    /// disk). Never starts the worker.
    std::optional<ModelCatalogue> find(const QString &program);
    /// Remembers `listModels` (the worker's `--list-models` document) and
    /// its parsed form for `program` as it is on disk now.
    void store(const QString &program, const QJsonObject &listModels, const ModelCatalogue &catalogue);
    /// The cache file of `program` (whether or not it exists); empty without
    /// a directory or when the program does not exist.
    QString entryPath(const QString &program) const;

private:
    // What identifies one build of a worker.
    struct Key
    {
        QString path; // canonical
        qint64 size = -1;
        qint64 mtimeMs = -1;
        bool operator==(const Key &other) const
        {
            return path == other.path && size == other.size && mtimeMs == other.mtimeMs;
        }
    };
    static std::optional<Key> keyOf(const QString &program);
    std::optional<ModelCatalogue> readEntry(const Key &key);

    QString m_directory;
    QHash<QString, std::pair<Key, ModelCatalogue>> m_memory; // canonical path -> entry
};

} // namespace trainyard
