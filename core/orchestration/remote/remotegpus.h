#pragma once

#include "devices/deviceinventory.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>

namespace trainyard::remotegpus {

// A host's GPUs from nvidia-smi's CSV (`--query-gpu` with the fields of
// remotescripts::gpuQueryFields(), `--query-compute-apps=gpu_uuid,pid,
// used_memory,process_name`, both `--format=csv,noheader,nounits`), as the
// lane headers show local ones: one DeviceInfo per GPU, its id the lane's
// device ("ssh:HOST/cuda:N"), its processes marked ours when `ours` holds
// their pid (the host's workers). A row that does not parse is skipped
// and counted in `skipped`.
QList<DeviceInfo> parse(const QString &host, const QByteArray &gpuRows, const QByteArray &appRows,
                        const QSet<qint64> &ours, int *skipped = nullptr);

} // namespace trainyard::remotegpus
