#include "orchestration/remote/remotegpus.h"

#include "orchestration/devices/device.h"

#include <QHash>

namespace trainyard::remotegpus {

namespace {

// A number of nvidia-smi's, -1 for "[N/A]" or anything else.
qint64 number(const QString &field)
{
    bool ok = false;
    const double v = field.trimmed().toDouble(&ok);
    return ok ? qint64(v) : -1;
}

QStringList fields(const QByteArray &row)
{
    QStringList out;
    for (const QString &f : QString::fromUtf8(row).split(QLatin1Char(','))) {
        out << f.trimmed();
    }
    return out;
}

} // namespace

QList<DeviceInfo> parse(const QString &host, const QByteArray &gpuRows, const QByteArray &appRows,
                        const QHash<qint64, qint64> &runs, const QByteArray &psRows, int *skipped)
{
    struct Ps
    {
        qint64 session = 0, group = 0;
        QString user;
    };
    QHash<qint64, Ps> ps;
    for (const QByteArray &row : psRows.split('\n')) {
        const QList<QByteArray> f = row.simplified().split(' ');
        if (f.size() == 4 && f.at(0).toLongLong() > 0) {
            ps.insert(f.at(0).toLongLong(), Ps{f.at(1).toLongLong(), f.at(2).toLongLong(), QString::fromUtf8(f.at(3))});
        }
    }
    int bad = 0;
    QList<DeviceInfo> gpus;
    QHash<QString, int> byUuid;
    for (const QByteArray &row : gpuRows.split('\n')) {
        if (row.trimmed().isEmpty()) {
            continue;
        }
        const QStringList f = fields(row);
        bool ok = false;
        const int index = f.value(0).toInt(&ok);
        // A name may hold a comma: the six other fields are counted from both ends.
        if (!ok || index < 0 || index > 999 || f.size() < 7) {
            ++bad;
            continue;
        }
        DeviceInfo d;
        d.index = index;
        d.id = Device::remote(host, index).toString();
        d.isGpu = true;
        d.name = f.mid(1, f.size() - 6).join(QStringLiteral(", "));
        const int n = int(f.size());
        d.utilization = int(number(f.at(n - 5)));
        const qint64 usedMiB = number(f.at(n - 4));
        const qint64 totalMiB = number(f.at(n - 3));
        d.memoryUsed = usedMiB >= 0 ? usedMiB * 1024 * 1024 : -1;
        d.memoryTotal = totalMiB >= 0 ? totalMiB * 1024 * 1024 : -1;
        d.temperature = int(number(f.at(n - 2)));
        byUuid.insert(f.at(n - 1), int(gpus.size()));
        gpus << d;
    }
    for (const QByteArray &row : appRows.split('\n')) {
        if (row.trimmed().isEmpty()) {
            continue;
        }
        const QStringList f = fields(row);
        const auto gpu = byUuid.constFind(f.value(0));
        const qint64 pid = number(f.value(1));
        if (f.size() < 4 || gpu == byUuid.constEnd() || pid <= 0) {
            ++bad;
            continue;
        }
        GpuProcess p;
        p.pid = pid;
        const qint64 mib = number(f.at(2));
        p.memoryBytes = mib >= 0 ? mib * 1024 * 1024 : -1;
        const Ps owner = ps.value(pid);
        const qint64 run = runs.value(pid, runs.value(owner.session, runs.value(owner.group)));
        if (run > 0) {
            p.owner = GpuProcess::Owner::Run;
            p.runPid = run;
        } else if (!owner.user.isEmpty()) {
            p.owner = GpuProcess::Owner::OtherUser;
        }
        p.user = owner.user;
        p.name = f.mid(3).join(QStringLiteral(", "));
        gpus[*gpu].processes << p;
    }
    if (skipped) {
        *skipped = bad;
    }
    return gpus;
}

} // namespace trainyard::remotegpus
