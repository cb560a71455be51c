#include "orchestration/dispatch/gpumemorybook.h"

#include "orchestration/runstore/jsonfile.h"

#include <QCryptographicHash>
#include <QJsonDocument>

namespace trainyard {

namespace {

constexpr qint64 kMaxBookBytes = 4 * 1024 * 1024;
const QString kPeaks = QStringLiteral("peaks");

} // namespace

qint64 GpuMemoryBook::withMargin(qint64 peakBytes)
{
    return peakBytes < 0 ? -1 : peakBytes + peakBytes / 10 + 256LL * 1024 * 1024;
}

QString GpuMemoryBook::key(const QJsonObject &spec)
{
    QJsonObject what;
    if (spec.contains(QStringLiteral("program"))) {
        what.insert(QStringLiteral("argv"),
                    spec.value(QStringLiteral("program")).toObject().value(QStringLiteral("argv")));
        what.insert(QStringLiteral("config"), spec.value(QStringLiteral("config")));
    } else {
        what.insert(QStringLiteral("model"), spec.value(QStringLiteral("model")));
        what.insert(QStringLiteral("data"), spec.value(QStringLiteral("data")));
        what.insert(QStringLiteral("batch_size"),
                    spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("batch_size")));
    }
    what.insert(QStringLiteral("gpus"),
                spec.value(QStringLiteral("resources")).toObject().value(QStringLiteral("gpus")));
    // QJsonObject keeps its keys sorted: the same configuration, the same bytes.
    return QString::fromLatin1(
        QCryptographicHash::hash(QJsonDocument(what).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256)
            .toHex()
            .left(32));
}

void GpuMemoryBook::load(const QString &path, QString *error)
{
    m_path = path;
    m_peaks.clear();
    QString why;
    const std::optional<QJsonObject> book = readOwnJsonFile(path, kMaxBookBytes, &why);
    // A file that is not the user's own plain JSON is left as it is: what
    // is learned from now on stays in memory.
    m_writable = book.has_value() || why.isEmpty();
    if (error) {
        *error = why;
    }
    if (!book) {
        return;
    }
    const QJsonObject peaks = book->value(kPeaks).toObject();
    for (auto it = peaks.begin(); it != peaks.end(); ++it) {
        const double bytes = it.value().toDouble(-1);
        if (bytes > 0 && bytes < 9.0e18) {
            m_peaks.insert(it.key(), qint64(bytes));
        }
    }
}

bool GpuMemoryBook::record(const QString &key, qint64 peakBytes, QString *error)
{
    if (peakBytes <= 0 || m_path.isEmpty() || peakBytes <= m_peaks.value(key, -1)) {
        return true;
    }
    m_peaks.insert(key, peakBytes);
    if (!m_writable) {
        return true;
    }
    QJsonObject peaks;
    for (auto it = m_peaks.cbegin(); it != m_peaks.cend(); ++it) {
        peaks.insert(it.key(), double(it.value()));
    }
    return writeOwnJsonFile(m_path, QJsonObject{{kPeaks, peaks}}, error);
}

} // namespace trainyard
