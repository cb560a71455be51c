#include "orchestration/catalogue/modelcataloguecache.h"

#include "orchestration/logcategories.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

namespace trainyard {

namespace {

// Bumped when the layout of a cache file changes; other layouts are rebuilt.
constexpr int kFormat = 1;
// A catalogue is tens of KiB; anything this large is not one of ours.
constexpr qint64 kMaxEntryBytes = 8 * 1024 * 1024;

} // namespace

ModelCatalogueCache::ModelCatalogueCache(const QString &directory)
    : m_directory(directory)
{
}

QString ModelCatalogueCache::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
}

ModelCatalogueCache &ModelCatalogueCache::shared()
{
    static ModelCatalogueCache cache(defaultDirectory());
    return cache;
}

std::optional<ModelCatalogueCache::Key> ModelCatalogueCache::keyOf(const QString &program)
{
    const QFileInfo info(program);
    const QString canonical = info.canonicalFilePath();
    if (canonical.isEmpty() || !info.isFile()) {
        return std::nullopt;
    }
    return Key{canonical, info.size(), info.lastModified().toMSecsSinceEpoch()};
}

QString ModelCatalogueCache::entryPath(const QString &program) const
{
    const auto key = keyOf(program);
    if (m_directory.isEmpty() || !key) {
        return {};
    }
    // One file per worker path; its size and time are checked inside.
    const QByteArray hash = QCryptographicHash::hash(key->path.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    return m_directory + QStringLiteral("/catalogue-") + QString::fromLatin1(hash) + QStringLiteral(".json");
}

std::optional<ModelCatalogue> ModelCatalogueCache::find(const QString &program)
{
    const auto key = keyOf(program);
    if (!key) {
        return std::nullopt;
    }
    const auto it = m_memory.constFind(key->path);
    if (it != m_memory.constEnd()) {
        if (it->first == *key) {
            qCDebug(lcCatalogue) << "catalogue of" << key->path << "from memory";
            return it->second;
        }
        m_memory.remove(key->path);
    }
    return readEntry(*key);
}

std::optional<ModelCatalogue> ModelCatalogueCache::readEntry(const Key &key)
{
    const QString path = entryPath(key.path);
    if (path.isEmpty() || !QFileInfo::exists(path)) {
        return std::nullopt;
    }
    // Whatever is wrong with the file, the loader asks the worker again and
    // writes a good one; a file left behind would only be read again.
    auto discard = [&](const char *why) {
        qCInfo(lcCatalogue) << "catalogue cache" << path << why << "- rebuilding it";
        QFile::remove(path);
        return std::nullopt;
    };
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return discard("cannot be read");
    }
    if (file.size() > kMaxEntryBytes) {
        return discard("is too large");
    }
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    file.close();
    const QJsonObject entry = doc.object();
    if (!doc.isObject() || entry.value(QLatin1String("format")).toInt() != kFormat) {
        return discard("is corrupt");
    }
    const Key stored{entry.value(QLatin1String("worker")).toString(), entry.value(QLatin1String("size")).toInteger(-1),
                     entry.value(QLatin1String("mtime_ms")).toInteger(-1)};
    if (!(stored == key)) {
        return discard("is stale (the worker changed)");
    }
    QString error;
    const ModelCatalogue catalogue =
        ModelCatalogue::fromJson(entry.value(QLatin1String("catalogue")).toObject(), &error);
    if (catalogue.isEmpty()) {
        return discard("holds no valid catalogue");
    }
    qCDebug(lcCatalogue) << "catalogue of" << key.path << "from" << path;
    m_memory.insert(key.path, {key, catalogue});
    return catalogue;
}

void ModelCatalogueCache::store(const QString &program, const QJsonObject &listModels, const ModelCatalogue &catalogue)
{
    const auto key = keyOf(program);
    if (!key) {
        return;
    }
    m_memory.insert(key->path, {*key, catalogue});
    const QString path = entryPath(program);
    if (path.isEmpty()) {
        return;
    }
    if (!QDir().mkpath(m_directory)) {
        qCInfo(lcCatalogue) << "cannot create the catalogue cache folder" << m_directory;
        return;
    }
    const QJsonObject entry{{QStringLiteral("format"), kFormat},
                            {QStringLiteral("worker"), key->path},
                            {QStringLiteral("size"), key->size},
                            {QStringLiteral("mtime_ms"), key->mtimeMs},
                            {QStringLiteral("catalogue"), listModels}};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(entry).toJson(QJsonDocument::Compact)) < 0
        || !file.commit()) {
        qCInfo(lcCatalogue) << "cannot write the catalogue cache" << path << file.errorString();
        return;
    }
    qCDebug(lcCatalogue) << "catalogue of" << key->path << "cached in" << path;
}

} // namespace trainyard
