#include "ui/board/fallbackbanner.h"

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/document/experimentdocument.h"

namespace trainyard {

FallbackBanner::FallbackBanner(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("banner"));
    setWordWrap(true);
    setStyleSheet(QStringLiteral("background: #fff4ce; color: #5c4400; padding: 4px 8px;"
                                 " border-bottom: 1px solid #e8d48a;"));
    setVisible(false);
}

void FallbackBanner::refresh(const ExperimentDocument *document)
{
    const DeviceInventory *devices = document ? document->devices() : nullptr;
    if (!document || !devices) {
        setVisible(false);
        return;
    }
    QStringList missing;
    for (int lane : document->missingDeviceLanes()) {
        missing.append(document->lane(lane).device.toString());
    }
    if (missing.isEmpty()) {
        setVisible(false);
        return;
    }
    const int gpus = devices->gpuCount();
    const QString have = gpus == 0 ? tr("This machine has no GPU") : tr("This machine has %n GPU(s)", nullptr, gpus);
    setText(document->cpuFallback()
                ? tr("%1: the lanes for %2 run on the CPU (Edit ▸ Run lanes of missing GPUs on the CPU).")
                      .arg(have, missing.join(QLatin1String(", ")))
                : tr("%1: the lanes for %2 will not start until you let them run on the CPU "
                     "(Edit ▸ Run lanes of missing GPUs on the CPU).")
                      .arg(have, missing.join(QLatin1String(", "))));
    setVisible(true);
}

} // namespace trainyard
