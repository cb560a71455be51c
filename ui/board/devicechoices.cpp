#include "ui/board/devicechoices.h"

#include "orchestration/devices/deviceinventory.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>

namespace trainyard::devicechoices {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("DeviceChoices", text);
}

QString range(int first, int last)
{
    return tr("GPUs %1–%2 (cuda:%1-%2)").arg(first).arg(last);
}
} // namespace

QStringList items(const QList<DeviceInfo> &devices)
{
    QStringList items{QStringLiteral("cpu")};
    QList<int> gpus;
    for (const DeviceInfo &d : devices) {
        if (d.isGpu && d.index >= 0) {
            gpus << d.index;
        }
    }
    std::sort(gpus.begin(), gpus.end());
    for (int index : std::as_const(gpus)) {
        items << QStringLiteral("cuda:%1").arg(index);
    }
    if (!gpus.isEmpty()) {
        items << tr("All GPUs (cuda:*)");
    }
    // Halves: two pools side by side, e.g. one per project, on one machine.
    if (gpus.size() >= 4 && gpus.last() - gpus.first() + 1 == gpus.size()) {
        const int half = gpus.first() + int(gpus.size()) / 2;
        items << range(gpus.first(), half - 1) << range(half, gpus.last());
    }
    return items;
}

QString device(const QString &choice)
{
    // An offered pool ends in its device in parentheses.
    static const QRegularExpression offered(QStringLiteral("\\(([^()\\s]+)\\)\\s*$"));
    const QRegularExpressionMatch m = offered.match(choice);
    return m.hasMatch() ? m.captured(1) : choice.trimmed();
}

QString itemFor(const QString &device, const QStringList &items)
{
    for (const QString &item : items) {
        if (devicechoices::device(item) == device) {
            return item;
        }
    }
    return device;
}

QString label()
{
    return tr("Device (cpu, cuda:N, or a pool of GPUs: cuda:*, cuda:0-3, cuda:0,2)");
}

} // namespace trainyard::devicechoices
