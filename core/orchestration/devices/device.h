#pragma once

#include <QString>

namespace trainyard {

// A lane's device as the experiment names it, understood in one place:
// "cpu", "cuda:N" (GPU N of this machine, N < 1000),
// "slurm:CLUSTER" / "slurm:CLUSTER/PARTITION" (a cluster the experiment
// defines) or "ssh:HOST/cuda:N" / "ssh:HOST/cpu" (GPU N or the CPU of a
// host the experiment defines, reached over ssh). Names are letters,
// digits and ._-, at most 100, not starting with . or -: never read as an
// option by ssh or Slurm. Anything else is Invalid.
class Device
{
public:
    enum class Kind {
        Invalid,
        Cpu,
        Cuda,
        Slurm,
        Remote
    };

    Device() = default; // Invalid
    static Device parse(const QString &text);

    Kind kind() const { return m_kind; }
    bool isValid() const { return m_kind != Kind::Invalid; }
    // This machine's "cpu" and "cuda:N"; a host's are isRemote().
    bool isCpu() const { return m_kind == Kind::Cpu; }
    bool isCuda() const { return m_kind == Kind::Cuda; }
    bool isSlurm() const { return m_kind == Kind::Slurm; }
    bool isRemote() const { return m_kind == Kind::Remote; }
    // This machine's CPU or one of its GPUs: what the worker runs on here.
    bool isLocal() const { return isCpu() || isCuda(); }
    int cudaIndex() const { return m_index; } // -1 unless Cuda, or Remote on a GPU
    QString cluster() const { return m_cluster; }
    QString partition() const { return m_partition; } // empty: the cluster's default
    QString host() const { return m_host; }           // Remote: the experiment's name for the host
    // Remote: the device on the host as its worker is told, "cuda:N" or "cpu".
    QString remoteDevice() const { return m_remote; }
    bool remoteIsCuda() const { return isRemote() && m_index >= 0; }
    QString toString() const { return m_text; }

    // The device string of `host`'s GPU `index` (-1: its CPU).
    static QString remote(const QString &host, int index);

private:
    Kind m_kind = Kind::Invalid;
    QString m_text;
    int m_index = -1;
    QString m_cluster;
    QString m_partition;
    QString m_host;
    QString m_remote;
};

} // namespace trainyard
