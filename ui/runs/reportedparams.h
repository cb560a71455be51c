#pragma once

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QString>

namespace trainyard {

/// What the live runs' scripts reported they used (params.json,
/// runconfigfile::readParams), by run folder: asked for twice a second per
/// run, so each answer is a stat, and a read only when the script wrote the
/// file again. A problem with the file is logged (trainyard.ui).
class ReportedParams
{
public:
    QJsonObject of(const QString &runDir);

private:
    struct Read
    {
        QDateTime modified;
        qint64 size = -1;
        QJsonObject values;
    };
    QHash<QString, Read> m_read;
};

} // namespace trainyard
