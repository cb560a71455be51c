#include "metrics/metricscsvwriter.h"

#include "metrics/metricslogging.h"
#include "metrics/metricstore.h"

#include <QIODevice>
#include <QSaveFile>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace trainyard {

namespace {

template <typename Number>
void appendNumber(QByteArray *line, Number value)
{
    char text[64];
    // Shortest round trip (C++17), locale-independent: what a reader parses
    // back is the number that was stored.
    const auto r = std::to_chars(text, text + sizeof text, value);
    line->append(text, qsizetype(r.ptr - text));
}

// The value `series` has at exactly `step`, else NaN.
double valueAt(const MetricSeries *series, std::int64_t step)
{
    const std::int64_t *begin = series->steps();
    const std::int64_t *end = begin + series->size();
    const std::int64_t *it = std::lower_bound(begin, end, step);
    return it != end && *it == step ? series->value(std::size_t(it - begin)) : MetricsCsvWriter::kNoEpoch;
}

// The epochs of the eval lines `metric` came from: "<split>/epoch" beside
// "<split>/<name>" (MetricRecord::pointName); null for a metric line's
// point. A split may itself hold a '/': each prefix is tried, the shortest first.
const MetricSeries *ownEpochs(const MetricStore &store, RunId run, const QString &metric)
{
    for (qsizetype slash = metric.indexOf(QLatin1Char('/')); slash > 0;
         slash = metric.indexOf(QLatin1Char('/'), slash + 1)) {
        if (const MetricSeries *s = store.series(run, metric.left(slash) + QStringLiteral("/epoch"))) {
            return s;
        }
    }
    return nullptr;
}

} // namespace

MetricsCsvWriter::MetricsCsvWriter(QIODevice *device)
    : m_device(device)
{
    m_ok = m_device->write("run,step,epoch,wall,metric,value\n") >= 0;
}

QByteArray MetricsCsvWriter::field(const QString &text)
{
    QByteArray bytes = text.toUtf8();
    if (bytes.contains(',') || bytes.contains('"') || bytes.contains('\n') || bytes.contains('\r')) {
        bytes = '"' + bytes.replace("\"", "\"\"") + '"';
    }
    return bytes;
}

template <typename Number>
void MetricsCsvWriter::writeLine(const QByteArray &run, std::int64_t step, Number epoch, Number wall,
                                 const QByteArray &metric, Number value)
{
    m_line.clear();
    m_line += run;
    m_line += ',';
    appendNumber(&m_line, step);
    m_line += ',';
    if (!std::isnan(epoch)) {
        appendNumber(&m_line, epoch);
    }
    m_line += ',';
    appendNumber(&m_line, wall);
    m_line += ',';
    m_line += metric;
    m_line += ',';
    appendNumber(&m_line, value);
    m_line += '\n';
    if (m_device->write(m_line) < 0) {
        m_ok = false;
    }
    ++m_lines;
}

void MetricsCsvWriter::writeValue(const QString &run, std::int64_t step, double epoch, double wall,
                                  const QString &metric, double value)
{
    writeLine(field(run), step, epoch, wall, field(metric), value);
}

void MetricsCsvWriter::writeFloatValue(const QString &run, std::int64_t step, float epoch, float wall,
                                       const QString &metric, float value)
{
    writeLine(field(run), step, epoch, wall, field(metric), value);
}

void MetricsCsvWriter::writeRun(const QString &name, const MetricStore &store, RunId run)
{
    const MetricSeries *epochs = store.series(run, QStringLiteral("epoch"));
    const QByteArray runField = field(name);
    const QStringList metrics = store.metricNames(run);
    for (const QString &metric : metrics) {
        // The epoch is a column; an eval line's "epoch" (epochs completed) says when, not how well.
        if (MetricStore::isBookkeeping(metric)) {
            continue;
        }
        const MetricSeries *s = store.series(run, metric);
        if (!s) {
            continue;
        }
        const QByteArray metricField = field(metric);
        const MetricSeries *evalEpochs = ownEpochs(store, run, metric);
        for (std::size_t i = 0; i < s->size(); ++i) {
            // An eval line's own epoch, where it gave one at this step, else the metric lines'.
            double epoch = evalEpochs ? valueAt(evalEpochs, s->step(i)) : kNoEpoch;
            if (std::isnan(epoch)) {
                epoch = epochOf(epochs, s->step(i));
            }
            writeLine(runField, s->step(i), epoch, s->wall(i), metricField, s->value(i));
        }
    }
}

double MetricsCsvWriter::epochOf(const MetricSeries *epochs, std::int64_t step)
{
    if (!epochs || epochs->isEmpty()) {
        return kNoEpoch;
    }
    const std::int64_t *begin = epochs->steps();
    const std::int64_t *end = begin + epochs->size();
    const std::int64_t *it = std::lower_bound(begin, end, step);
    const auto i = std::size_t(it - begin);
    if (it != end && *it == step) {
        return epochs->value(i);
    }
    // Epochs never decrease with the step: between two metric lines of one
    // epoch every step belongs to it.
    if (it != begin && it != end && epochs->value(i - 1) == epochs->value(i)) {
        return epochs->value(i);
    }
    return kNoEpoch;
}

bool MetricsCsvWriter::writeFile(const QString &path, const std::function<void(MetricsCsvWriter &csv)> &write,
                                 QString *error)
{
    QSaveFile file(path);
    auto fail = [&] {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        qCWarning(lcMetrics).noquote() << path << "not written:" << file.errorString();
        return false;
    };
    if (!file.open(QIODevice::WriteOnly)) {
        return fail();
    }
    MetricsCsvWriter csv(&file);
    write(csv);
    if (!csv.ok()) {
        file.cancelWriting();
        return fail();
    }
    if (!file.commit()) {
        return fail();
    }
    qCDebug(lcMetrics).noquote() << "wrote" << csv.lineCount() << "values to" << path;
    return true;
}

} // namespace trainyard
