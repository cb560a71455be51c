#pragma once

#include "metrics/runid.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <functional>
#include <limits>

class QIODevice;

namespace trainyard {

class MetricSeries;
class MetricStore;

// The one CSV form of training metrics, for pandas and spreadsheets: long
// format, one line per value, under the header
//     run,step,epoch,wall,metric,value
// `epoch` is an eval line's own epoch (its "<split>/epoch" at that step)
// where it gave one, else the epoch of the point's step as the run's metric
// lines tell it (epochOf), empty when neither does; `metric` is MetricStore's name ("loss",
// "lr", "valid/mrr", ...). Numbers are written in the shortest form that
// reads back as the same number; a run or metric name holding a comma, a
// quote or a line break is quoted (a quote doubled). The plots' Export,
// Session::exportCsv and `trainyard export` all write through this.
class MetricsCsvWriter
{
public:
    static constexpr double kNoEpoch = std::numeric_limits<double>::quiet_NaN();

    // Writes the header line to `device` (open for writing).
    explicit MetricsCsvWriter(QIODevice *device);

    // One value; an `epoch` of kNoEpoch (NaN) leaves the field empty.
    void writeValue(const QString &run, std::int64_t step, double epoch, double wall, const QString &metric,
                    double value);
    // The same for numbers held in single precision (the plots' copy): the
    // float's shortest text, so 0.1f is written "0.1", not 0.10000000149011612.
    void writeFloatValue(const QString &run, std::int64_t step, float epoch, float wall, const QString &metric,
                         float value);
    // Every curve of `run` in `store` except its epochs (they fill the epoch
    // column: an eval point's from its own line, else epochOf): metric by
    // metric, each by step.
    void writeRun(const QString &name, const MetricStore &store, RunId run);

    // False once a write to the device failed.
    bool ok() const { return m_ok; }
    qint64 lineCount() const { return m_lines; } // values written (the header not counted)

    // The epoch of `step`, given a run's epochs by step (its "epoch" series,
    // from the metric lines): the metric line's at that step; between two
    // metric lines of the same epoch, that epoch; otherwise kNoEpoch.
    static double epochOf(const MetricSeries *epochs, std::int64_t step);
    // A run or metric name as a CSV field (quoted when needed).
    static QByteArray field(const QString &text);

    // Writes `path` in one go (QSaveFile: all or nothing): the header, then
    // what `write` adds. False, with `error` naming the file, when it cannot.
    static bool writeFile(const QString &path, const std::function<void(MetricsCsvWriter &csv)> &write, QString *error);

private:
    template <typename Number>
    void writeLine(const QByteArray &run, std::int64_t step, Number epoch, Number wall, const QByteArray &metric,
                   Number value);

    QIODevice *m_device;
    QByteArray m_line;
    qint64 m_lines = 0;
    bool m_ok = true;
};

} // namespace trainyard
