#include "orchestration/runstore/receivedmetrics.h"

#include "metrics/metricstore.h"
#include "metrics/runfile.h"
#include "protocol/protocol.h"

#include <QFile>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

// The size of the regular file at `path` (a link is not followed); -1 when
// there is none.
qint64 regularSize(const QString &path)
{
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return -1;
    }
    return st.st_size;
}

QString metricsPath(const QString &dir)
{
    return dir + QStringLiteral("/metrics.jsonl");
}

// Bytes at the end of metrics.jsonl after its last newline: a line cut short.
qint64 tornBytes(const QString &dir, qint64 size)
{
    QFile file(metricsPath(dir));
    if (size <= 0 || !file.open(QIODevice::ReadOnly)) {
        return 0;
    }
    const qint64 from = qMax<qint64>(0, size - 65536);
    file.seek(from);
    const QByteArray tail = file.read(size - from);
    const qsizetype newline = tail.lastIndexOf('\n');
    return size - (from + newline + 1);
}

// A number as the worker wrote it: counts (epoch) as integers, a value
// that is not finite as null (docs/protocol.md).
nlohmann::json value(double v)
{
    if (!std::isfinite(v)) {
        return nullptr;
    }
    if (v == std::trunc(v) && std::fabs(v) < 9.0e15) {
        return static_cast<std::int64_t>(v);
    }
    return v;
}

} // namespace

QString ReceivedMetrics::fileName()
{
    return QStringLiteral("metrics.received.jsonl");
}

MetricsLogReader::Result ReceivedMetrics::read(const QString &dir, qint64 offset,
                                               const MetricsLogReader::RecordCallback &record)
{
    MetricsLogReader reader;
    const QString received = dir + QLatin1Char('/') + fileName();
    if (::access(QFile::encodeName(received).constData(), F_OK) != 0 && errno == ENOENT) {
        return reader.read(metricsPath(dir), offset, record);
    }
    const qint64 mainSize = qMax<qint64>(0, regularSize(metricsPath(dir)));
    if (offset > mainSize + qMax<qint64>(0, regularSize(received))) {
        offset = 0; // replaced: read again from the start
    }
    MetricsLogReader::Result result;
    if (offset < mainSize) {
        result = reader.read(metricsPath(dir), offset, record);
        if (!result.error.isEmpty()) {
            return result;
        }
        offset = mainSize; // a torn last line there stays skipped: the marker names it
    }
    const MetricsLogReader::Result more = reader.read(received, offset - mainSize, record);
    result.offset = mainSize + more.offset;
    result.records += more.records;
    result.skipped += more.skipped;
    result.invalid += more.invalid;
    if (!more.error.isEmpty()) {
        result.error = more.error;
    }
    return result;
}

void ReceivedMetrics::lastInFile(const QString &dir, qint64 *step, bool *done)
{
    *step = -1;
    *done = false;
    QFile file;
    QString error;
    if (!openRegularFile(metricsPath(dir), &file, &error)) {
        return;
    }
    // The last 1 MiB holds the last metric line of any run (a line every
    // report, a heartbeat a second); complete lines only, newest first.
    const qint64 size = file.size();
    const qint64 from = qMax<qint64>(0, size - (1 << 20));
    file.seek(from);
    const QByteArray tail = file.read(size - from);
    qsizetype end = tail.lastIndexOf('\n');
    MetricsLogReader reader;
    while (end > 0) {
        const qsizetype start = tail.lastIndexOf('\n', end - 1) + 1;
        if (start == 0 && from > 0) {
            break; // cut by the window
        }
        if (reader.decodeLine(tail.constData() + start, std::size_t(end - start))
            == MetricsLogReader::LineStatus::Record) {
            const MetricRecord &record = reader.record();
            if (record.kind == protocol::MessageType::Done) {
                *done = true;
            }
            if (record.kind == protocol::MessageType::Metric) {
                *step = record.step;
                return;
            }
        }
        end = start - 1;
    }
    if (from == 0) {
        return;
    }
    // None in the window (a long tail of other lines): the whole file.
    MetricsLogReader().read(metricsPath(dir), 0, [&](const MetricRecord &record) {
        if (record.kind == protocol::MessageType::Metric) {
            *step = record.step;
            *done = false;
        } else if (record.kind == protocol::MessageType::Done) {
            *done = true;
        }
    });
}

qint64 ReceivedMetrics::bytes(const QString &dir)
{
    return qMax<qint64>(0, regularSize(metricsPath(dir)))
           + qMax<qint64>(0, regularSize(dir + QLatin1Char('/') + fileName()));
}

bool ReceivedMetrics::write(const QString &dir, qint64 fileStep, const QByteArray &lines, QString *error)
{
    const qint64 size = qMax<qint64>(0, regularSize(metricsPath(dir)));
    const qint64 torn = tornBytes(dir, size);
    std::string text = "these lines reached Trainyard over the socket but are in no file of the run: its "
                       "metrics.jsonl ends at step "
                       + std::to_string(fileStep);
    if (torn > 0) {
        text += ", in a torn line of " + std::to_string(torn) + " bytes at byte " + std::to_string(size - torn)
                + " that no reader takes";
    }
    const std::string marker = protocol::encode(protocol::log("warning", text, 0));
    const QString path = dir + QLatin1Char('/') + fileName();
    const QByteArray name = QFile::encodeName(path);
    const int fd = ::open(name.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    const auto fail = [&](int err) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(err)));
        }
        return false;
    };
    if (fd < 0) {
        return fail(errno);
    }
    const QByteArray all = QByteArray::fromStdString(marker) + lines;
    const char *data = all.constData();
    qint64 left = all.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, size_t(left));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int err = n < 0 ? errno : ENOSPC;
            ::close(fd);
            ::unlink(name.constData()); // never a file of its own that is torn
            return fail(err);
        }
        data += n;
        left -= n;
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(name.constData());
        return fail(err);
    }
    return true;
}

bool ReceivedMetrics::setAside(const QString &dir)
{
    const QByteArray from = QFile::encodeName(dir + QLatin1Char('/') + fileName());
    for (int n = 1; n < 1000; ++n) {
        const QByteArray aside =
            QFile::encodeName(QStringLiteral("%1/%2.before-resume-%3").arg(dir, fileName()).arg(n));
        if (::link(from.constData(), aside.constData()) == 0) {
            ::unlink(from.constData());
            return true;
        }
        if (errno != EEXIST) {
            return false; // none (ENOENT), or it cannot be kept aside: left where it is
        }
    }
    return false;
}

QByteArray ReceivedMetrics::doneLine(const QString &status, int exitCode)
{
    return QByteArray::fromStdString(protocol::encode(protocol::done(status.toStdString(), exitCode, 0)));
}

QByteArray ReceivedMetrics::linesAfter(const MetricStore &store, RunId run, qint64 afterStep, qint64 totalSteps)
{
    // One line per kind ("" for metric lines, else the eval split) and step.
    std::map<std::pair<std::int64_t, std::string>, nlohmann::json> lines;
    for (const QString &name : store.metricNames(run)) {
        const MetricSeries *series = store.series(run, name);
        if (!series) {
            continue;
        }
        const qsizetype slash = name.indexOf(QLatin1Char('/'));
        const std::string split = slash < 0 ? std::string() : name.left(slash).toStdString();
        const std::string key = (slash < 0 ? name : name.mid(slash + 1)).toStdString();
        for (std::size_t i = 0; i < series->size(); ++i) {
            if (series->step(i) <= afterStep) {
                continue;
            }
            nlohmann::json &line = lines[{series->step(i), split}];
            if (line.is_null()) {
                line = split.empty() ? nlohmann::json{{"type", "metric"}}
                                     : nlohmann::json{{"type", "eval"}, {"split", split}};
                line["step"] = series->step(i);
                line["wall"] = series->wall(i);
                if (split.empty() && totalSteps >= 0) {
                    line["total_steps"] = totalSteps;
                }
            }
            line[key] = value(series->value(i));
        }
    }
    QByteArray out;
    for (const auto &[at, line] : lines) {
        out += QByteArray::fromStdString(protocol::encode(line));
    }
    return out;
}

} // namespace trainyard
