#include "orchestration/devices/device.h"

#include <QRegularExpression>

#include <algorithm>

namespace trainyard {

namespace {

constexpr int kMaxGpuIndex = 999;

// "N", "*", "A-B", "A,B,C" after "cuda:": false when it is none of these.
bool parseGpus(const QString &text, QList<int> *indices, bool *all, bool *pool)
{
    static const QRegularExpression number(QRegularExpression::anchoredPattern(QStringLiteral("0|[1-9][0-9]{0,2}")));
    static const QRegularExpression range(
        QRegularExpression::anchoredPattern(QStringLiteral("(0|[1-9][0-9]{0,2})-(0|[1-9][0-9]{0,2})")));
    indices->clear();
    *all = text == QLatin1String("*");
    *pool = *all;
    if (*all) {
        return true;
    }
    if (number.match(text).hasMatch()) {
        *indices = {text.toInt()};
        return true;
    }
    *pool = true;
    if (const QRegularExpressionMatch m = range.match(text); m.hasMatch()) {
        const int from = m.captured(1).toInt();
        const int to = m.captured(2).toInt();
        if (from >= to || to > kMaxGpuIndex) {
            return false;
        }
        for (int i = from; i <= to; ++i) {
            indices->append(i);
        }
        return true;
    }
    const QStringList parts = text.split(QLatin1Char(','));
    if (parts.size() < 2) {
        return false;
    }
    for (const QString &part : parts) {
        if (!number.match(part).hasMatch() || indices->contains(part.toInt())) {
            return false; // a GPU named twice is a mistake, not a weight
        }
        indices->append(part.toInt());
    }
    std::sort(indices->begin(), indices->end());
    return true;
}

} // namespace

Device Device::parse(const QString &text)
{
    static const QRegularExpression cuda(
        QRegularExpression::anchoredPattern(QStringLiteral("cuda:([0-9*,-]{1,4000})")));
    static const QRegularExpression slurm(QRegularExpression::anchoredPattern(
        QStringLiteral("slurm:([A-Za-z0-9_][A-Za-z0-9._-]{0,99})(?:/([A-Za-z0-9_][A-Za-z0-9._-]{0,99}))?")));
    static const QRegularExpression ssh(QRegularExpression::anchoredPattern(
        QStringLiteral("ssh:([A-Za-z0-9_][A-Za-z0-9._-]{0,99})/(cpu|cuda:([0-9*,-]{1,4000}))")));
    Device d;
    d.m_text = text;
    if (text == QLatin1String("cpu")) {
        d.m_kind = Kind::Cpu;
    } else if (const QRegularExpressionMatch m = cuda.match(text); m.hasMatch()) {
        if (parseGpus(m.captured(1), &d.m_indices, &d.m_all, &d.m_pool)) {
            d.m_kind = Kind::Cuda;
            d.m_index = d.m_pool ? -1 : d.m_indices.first();
        }
    } else if (const QRegularExpressionMatch m = slurm.match(text); m.hasMatch()) {
        d.m_kind = Kind::Slurm;
        d.m_cluster = m.captured(1);
        d.m_partition = m.captured(2);
    } else if (const QRegularExpressionMatch m = ssh.match(text); m.hasMatch()) {
        const bool gpu = !m.captured(3).isEmpty();
        if (!gpu || parseGpus(m.captured(3), &d.m_indices, &d.m_all, &d.m_pool)) {
            d.m_kind = Kind::Remote;
            d.m_host = m.captured(1);
            d.m_remote = m.captured(2);
            d.m_index = gpu && !d.m_pool ? d.m_indices.first() : -1;
        }
    }
    return d;
}

Device Device::cpu()
{
    return parse(QStringLiteral("cpu"));
}

Device Device::onHost() const
{
    if (isRemote()) {
        return parse(m_remote);
    }
    return isLocal() ? *this : cpu();
}

Device Device::remote(const QString &host, int index)
{
    return parse(index < 0 ? QStringLiteral("ssh:%1/cpu").arg(host)
                           : QStringLiteral("ssh:%1/cuda:%2").arg(host).arg(index));
}

Device Device::gpus(const QList<int> &indices, const QString &host)
{
    QStringList parts;
    for (int i : indices) {
        parts << QString::number(i);
    }
    const QString cuda = QStringLiteral("cuda:") + parts.join(QLatin1Char(','));
    return parse(host.isEmpty() ? cuda : QStringLiteral("ssh:%1/%2").arg(host, cuda));
}

} // namespace trainyard
