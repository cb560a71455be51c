#include "devices/device.h"

#include <QRegularExpression>

namespace trainyard {

Device Device::parse(const QString &text)
{
    static const QRegularExpression cuda(
        QRegularExpression::anchoredPattern(QStringLiteral("cuda:(0|[1-9][0-9]{0,2})")));
    static const QRegularExpression slurm(QRegularExpression::anchoredPattern(
        QStringLiteral("slurm:([A-Za-z0-9_][A-Za-z0-9._-]{0,99})(?:/([A-Za-z0-9_][A-Za-z0-9._-]{0,99}))?")));
    static const QRegularExpression ssh(QRegularExpression::anchoredPattern(
        QStringLiteral("ssh:([A-Za-z0-9_][A-Za-z0-9._-]{0,99})/(cpu|cuda:(0|[1-9][0-9]{0,2}))")));
    Device d;
    d.m_text = text;
    if (text == QLatin1String("cpu")) {
        d.m_kind = Kind::Cpu;
    } else if (const QRegularExpressionMatch m = cuda.match(text); m.hasMatch()) {
        d.m_kind = Kind::Cuda;
        d.m_index = m.captured(1).toInt();
    } else if (const QRegularExpressionMatch m = slurm.match(text); m.hasMatch()) {
        d.m_kind = Kind::Slurm;
        d.m_cluster = m.captured(1);
        d.m_partition = m.captured(2);
    } else if (const QRegularExpressionMatch m = ssh.match(text); m.hasMatch()) {
        d.m_kind = Kind::Remote;
        d.m_host = m.captured(1);
        d.m_remote = m.captured(2);
        d.m_index = m.captured(3).isEmpty() ? -1 : m.captured(3).toInt();
    }
    return d;
}

QString Device::remote(const QString &host, int index)
{
    return index < 0 ? QStringLiteral("ssh:%1/cpu").arg(host) : QStringLiteral("ssh:%1/cuda:%2").arg(host).arg(index);
}

} // namespace trainyard
