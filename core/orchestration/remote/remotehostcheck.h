#pragma once

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/remote/remotehostconfig.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

#include <memory>

namespace trainyard {

class SshMaster;

// What `trainyard check` asks a host (docs/remote.md#trainyard-check-asks-the-host),
// blocking, each command bounded, through the same master and rules as
// its runs: that it can be reached, that its worker is an executable file
// that runs (`--version`), that its runs_root can be made and written,
// how many GPUs nvidia-smi lists there, and the worker's own check of a
// run's data there (`--check --spec`).
class RemoteHostCheck
{
    Q_DECLARE_TR_FUNCTIONS(RemoteHostCheck)
public:
    explicit RemoteHostCheck(RemoteHostConfig config);
    ~RemoteHostCheck();

    // Each field is one problem, empty when fine.
    struct Result
    {
        bool reachable = true; // false: `host` says why, nothing else was asked
        QString host;
        QString worker;
        QString runsRoot;
        QString workerVersion;     // what --version said
        int gpus = -1;             // nvidia-smi's count; -1: none there
        QList<DeviceInfo> gpuList; // as the lanes would name them ("ssh:HOST/cuda:N")
    };
    Result check();
    // The worker's complaint about `spec`'s data there; empty when fine.
    QString checkData(const QJsonObject &spec);

private:
    RemoteHostConfig m_config;
    std::unique_ptr<SshMaster> m_master;
};

} // namespace trainyard
