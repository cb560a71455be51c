#include "runspecview.h"

#include <QFileInfo>

#include <cmath>
#include <limits>

namespace trainyard {

std::optional<qint64> RunSpecView::integer(const QJsonObject &o, const QString &key)
{
    const QJsonValue v = o.value(key);
    if (!v.isDouble())
        return std::nullopt;
    const double d = v.toDouble();
    if (std::floor(d) != d || std::fabs(d) > 9.0e15)
        return std::nullopt;
    return static_cast<qint64>(d);
}

QString RunSpecView::name() const
{
    return m_spec.value(QStringLiteral("name")).toString();
}

QString RunSpecView::effectiveName() const
{
    const QString n = name();
    return n.isEmpty() ? modelType() : n;
}

QString RunSpecView::modelType() const
{
    return model().value(QStringLiteral("type")).toString();
}

QString RunSpecView::dataKind() const
{
    return data().value(QStringLiteral("kind")).toString();
}

QString RunSpecView::dataPath() const
{
    return data().value(QStringLiteral("path")).toString();
}

QString RunSpecView::dataSummary() const
{
    const QString path = dataPath();
    return path.isEmpty() ? dataKind() : QStringLiteral("%1: %2").arg(dataKind(), QFileInfo(path).fileName());
}

std::optional<qint64> RunSpecView::epochs() const
{
    return integer(train(), QStringLiteral("epochs"));
}

std::optional<qint64> RunSpecView::maxSteps() const
{
    return integer(train(), QStringLiteral("max_steps"));
}

std::optional<qint64> RunSpecView::batchSize() const
{
    return integer(train(), QStringLiteral("batch_size"));
}

QString RunSpecView::optimizer() const
{
    return train().value(QStringLiteral("optimizer")).toString();
}

std::optional<double> RunSpecView::learningRate() const
{
    const QJsonValue v = train().value(QStringLiteral("lr"));
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

std::optional<qint64> RunSpecView::seed() const
{
    return integer(train(), QStringLiteral("seed"));
}

std::optional<qint64> RunSpecView::evalEveryEpochs() const
{
    return integer(section(QStringLiteral("eval")), QStringLiteral("every_epochs"));
}

QString RunSpecView::evalSplit() const
{
    return section(QStringLiteral("eval")).value(QStringLiteral("split")).toString();
}

std::optional<qint64> RunSpecView::reportEverySteps() const
{
    return integer(section(QStringLiteral("report")), QStringLiteral("every_steps"));
}

int RunSpecView::repeat() const
{
    const auto r = integer(m_spec, QStringLiteral("repeat"));
    return r && *r >= 1 && *r <= std::numeric_limits<int>::max() ? static_cast<int>(*r) : 1;
}

} // namespace trainyard
