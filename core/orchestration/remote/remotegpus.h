#pragma once

#include "orchestration/devices/deviceinventory.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

namespace trainyard::remotegpus {

// A host's GPUs from nvidia-smi's CSV (`--query-gpu` with the fields of
// remotescripts::gpuQueryFields(), `--query-compute-apps=gpu_uuid,pid,
// used_memory,process_name`, both `--format=csv,noheader,nounits`), as the
// lane headers show local ones: one DeviceInfo per GPU, its id the lane's
// device ("ssh:HOST/cuda:N"). A process is Run when `runs` maps its pid, its
// session or its group (a run's worker pid and its waiting sh, which leads
// the run's session there) to the run's pid; else OtherUser with its user
// when `psRows` ("PID SID PGID USER", ps there) knows it; else Unknown. A
// row that does not parse is skipped and counted in `skipped`.
QList<DeviceInfo> parse(const QString &host, const QByteArray &gpuRows, const QByteArray &appRows,
                        const QHash<qint64, qint64> &runs, const QByteArray &psRows = {}, int *skipped = nullptr);

} // namespace trainyard::remotegpus
