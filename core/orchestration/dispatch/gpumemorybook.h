#pragma once

#include <QHash>
#include <QJsonObject>
#include <QString>

namespace trainyard {

// What runs of one configuration used of a GPU at their peak, learned from
// earlier runs (NVML's memory of each run's processes, summed over its
// process tree, the most on any one of its GPUs), kept in the runs root as
// `.trainyard-gpu-memory.json` (docs/experiment-format.md#resources). A run
// whose spec gives no `gpu_memory` is placed with the peak of its
// configuration plus a margin.
//
// Its configuration (key()) is what decides its memory: a worker run's model
// and data objects, train.batch_size and resources.gpus; a program run's argv,
// config and resources.gpus. Not its name, seed, learning rate, epochs,
// evaluation, checkpoints or reports.
class GpuMemoryBook
{
public:
    // 10 % and 256 MiB more than the largest peak seen: allocators grow in
    // blocks, and a run's peak moves a little with its data's order.
    static qint64 withMargin(qint64 peakBytes);
    static QString key(const QJsonObject &spec);

    // Reads `path` (a missing file is an empty book; a link, a FIFO, another
    // user's or a broken file is read as empty and never written over,
    // `error` says why).
    void load(const QString &path, QString *error = nullptr);
    QString path() const { return m_path; }
    // The largest peak recorded for `key`, -1 when none.
    qint64 peak(const QString &key) const { return m_peaks.value(key, -1); }
    // Records a run's peak (the largest is kept) and writes the file
    // (never through a link).
    bool record(const QString &key, qint64 peakBytes, QString *error = nullptr);

private:
    QString m_path;
    QHash<QString, qint64> m_peaks;
    bool m_writable = true; // false: the file was refused or broken, and is left alone
};

} // namespace trainyard
