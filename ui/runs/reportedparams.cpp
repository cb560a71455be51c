#include "ui/runs/reportedparams.h"

#include "orchestration/runstore/runconfigfile.h"
#include "ui/common/uilogcategories.h"

#include <QFileInfo>

namespace trainyard {

QJsonObject ReportedParams::of(const QString &runDir)
{
    if (runDir.isEmpty()) {
        return {};
    }
    const QFileInfo info(runconfigfile::paramsPath(runDir));
    if (!info.exists() && !info.isSymLink()) {
        m_read.remove(runDir);
        return {};
    }
    Read &read = m_read[runDir];
    if (read.size != info.size() || read.modified != info.lastModified()) {
        QString error;
        read.values = runconfigfile::readParams(runDir, &error);
        read.size = info.size();
        read.modified = info.lastModified();
        if (!error.isEmpty()) {
            qCWarning(lcUi).noquote() << error;
        }
    }
    return read.values;
}

} // namespace trainyard
