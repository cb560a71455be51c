#pragma once

#include <QString>

namespace trainyard {

// A lane's device as the experiment names it, understood in one place:
// "cpu", "cuda:N" (GPU N of this machine, N < 1000) or
// "slurm:CLUSTER" / "slurm:CLUSTER/PARTITION" (a cluster the experiment
// defines; names of letters, digits and ._-, at most 100, not starting
// with . or -). Anything else is Invalid.
class Device
{
public:
    enum class Kind {
        Invalid,
        Cpu,
        Cuda,
        Slurm
    };

    Device() = default; // Invalid
    static Device parse(const QString &text);

    Kind kind() const { return m_kind; }
    bool isValid() const { return m_kind != Kind::Invalid; }
    bool isCpu() const { return m_kind == Kind::Cpu; }
    bool isCuda() const { return m_kind == Kind::Cuda; }
    bool isSlurm() const { return m_kind == Kind::Slurm; }
    // This machine's CPU or one of its GPUs: what the worker runs on here.
    bool isLocal() const { return isCpu() || isCuda(); }
    int cudaIndex() const { return m_index; } // -1 unless Cuda
    QString cluster() const { return m_cluster; }
    QString partition() const { return m_partition; } // empty: the cluster's default
    QString toString() const { return m_text; }

private:
    Kind m_kind = Kind::Invalid;
    QString m_text;
    int m_index = -1;
    QString m_cluster;
    QString m_partition;
};

} // namespace trainyard
