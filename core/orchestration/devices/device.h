#pragma once

#include <QList>
#include <QString>

namespace trainyard {

// A lane's device as the experiment names it, understood in one place:
// "cpu", "cuda:N" (GPU N of this machine, N < 1000), a pool of this
// machine's GPUs: "cuda:*" (all), "cuda:0-3", "cuda:0,2,5" (where each run
// starts on the GPUs with room: placement/gpuplacer.h),
// "slurm:CLUSTER" / "slurm:CLUSTER/PARTITION" (a cluster the experiment
// defines) or "ssh:HOST/cuda:N" / "ssh:HOST/cpu" / "ssh:HOST/cuda:*" ...
// (GPU N, the CPU or a pool of GPUs of a host the experiment defines,
// reached over ssh). A run placed on GPUs of a pool runs on "cuda:1,3"
// (or "ssh:HOST/cuda:1,3"): the same list syntax. Names are letters,
// digits and ._-, at most 100, not starting with . or -: never read as an
// option by ssh or Slurm. Anything else is Invalid.
//
// Parsed once, where the text enters (the experiment file, the board's
// editors, the state file, the command line), and held as a value by lanes,
// runs and launch specs; an Invalid one keeps its text for messages.
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

    Device() = default; // Invalid, empty text
    static Device parse(const QString &text);
    static Device cpu();

    Kind kind() const { return m_kind; }
    bool isValid() const { return m_kind != Kind::Invalid; }
    // This machine's "cpu" and "cuda:N"; a host's are isRemote().
    bool isCpu() const { return m_kind == Kind::Cpu; }
    bool isCuda() const { return m_kind == Kind::Cuda; }
    bool isSlurm() const { return m_kind == Kind::Slurm; }
    bool isRemote() const { return m_kind == Kind::Remote; }
    // This machine's CPU or one of its GPUs: what the worker runs on here.
    bool isLocal() const { return isCpu() || isCuda(); }
    // One named GPU ("cuda:N", "ssh:HOST/cuda:N"): its index; else -1.
    int cudaIndex() const { return m_index; }
    // A set of GPUs rather than one: "cuda:*", a range or a list.
    bool isPool() const { return m_pool; }
    // "cuda:*" (every GPU of its machine, however many).
    bool isAllGpus() const { return m_all; }
    // The GPUs named, ascending ({N} for "cuda:N"); empty for "cuda:*" and for no GPU.
    QList<int> gpuIndices() const { return m_indices; }
    // Local or a host's, any GPU device (one, or a pool).
    bool isGpu() const { return (isCuda() || isRemote()) && (m_index >= 0 || m_pool); }
    QString cluster() const { return m_cluster; }
    QString partition() const { return m_partition; } // empty: the cluster's default
    QString host() const { return m_host; }           // Remote: the experiment's name for the host
    // Remote: the device on the host as its worker is told, "cuda:N" or "cpu".
    QString remoteDevice() const { return m_remote; }
    // Remote: that device as the host sees it ("ssh:lab/cuda:1,3" is
    // "cuda:1,3" there); this machine's devices are themselves; else cpu.
    Device onHost() const;
    bool remoteIsCuda() const { return isRemote() && (m_index >= 0 || m_pool); }
    // The text as the experiment writes it: what files, messages and the
    // worker's --device get.
    QString toString() const { return m_text; }
    bool isEmpty() const { return m_text.isEmpty(); }

    bool operator==(const Device &other) const { return m_text == other.m_text; }
    bool operator!=(const Device &other) const { return m_text != other.m_text; }

    // `host`'s GPU `index` (-1: its CPU).
    static Device remote(const QString &host, int index);
    // "cuda:1,3" for GPUs {1, 3}, after "ssh:HOST/" when `host` is given.
    static Device gpus(const QList<int> &indices, const QString &host = QString());

private:
    Kind m_kind = Kind::Invalid;
    QString m_text;
    int m_index = -1;
    bool m_pool = false;
    bool m_all = false;
    QList<int> m_indices;
    QString m_cluster;
    QString m_partition;
    QString m_host;
    QString m_remote;
};

} // namespace trainyard
