#include "runs/paramcolumns.h"

#include "experiment/runspecview.h"

#include <QMap>

namespace trainyard {

namespace {

// `from` merged into `into`, objects key by key: the union of the runs'
// specs, whose flattened keys are the columns in RunSpecView's one order.
void mergeKeys(QJsonObject *into, const QJsonObject &from)
{
    for (auto it = from.constBegin(); it != from.constEnd(); ++it) {
        if (it.value().isObject()) {
            QJsonObject inner = into->value(it.key()).toObject();
            mergeKeys(&inner, it.value().toObject());
            into->insert(it.key(), inner);
        } else if (!into->contains(it.key())) {
            into->insert(it.key(), it.value());
        }
    }
}

} // namespace

bool ParamColumns::isParam(const QString &key)
{
    return key != QLatin1String("name") && key != QLatin1String("model.type");
}

ParamColumns ParamColumns::of(const QList<RunRow> &live, const QList<RunRow> &past)
{
    QJsonObject all;
    for (const QList<RunRow> *rows : {&live, &past}) {
        for (const RunRow &row : *rows) {
            mergeKeys(&all, row.resolved);
        }
    }
    ParamColumns columns;
    for (const RunSpecView::Param &p : RunSpecView(all).flattened()) {
        if (isParam(p.key)) {
            columns.m_keys.append(p.key);
        }
    }
    // After the spec's: the names of the runs' summaries (run.summary), in name order.
    QMap<QString, bool> summaryNames;
    for (const QList<RunRow> *rows : {&live, &past}) {
        for (const RunRow &row : *rows) {
            for (auto it = row.summary.constBegin(); it != row.summary.constEnd(); ++it) {
                summaryNames.insert(it.key(), true);
            }
        }
    }
    for (auto it = summaryNames.constBegin(); it != summaryNames.constEnd(); ++it) {
        columns.m_keys.append(RunRow::summaryKey(it.key()));
    }
    const auto at = [&](qsizetype r) -> const RunRow & {
        return r < live.size() ? live.at(r) : past.at(r - live.size());
    };
    const qsizetype rows = live.size() + past.size();
    for (const QString &key : std::as_const(columns.m_keys)) {
        const QJsonValue first = rows > 0 ? at(0).params.value(key) : QJsonValue();
        for (qsizetype r = 1; r < rows; ++r) {
            if (at(r).params.value(key) != first) {
                columns.m_differing.insert(key);
                break;
            }
        }
    }
    return columns;
}

QVariant ParamColumns::data(const RunRow &row, const QString &key, int role)
{
    const auto it = row.params.constFind(key);
    if (it == row.params.constEnd()) {
        return {};
    }
    const QJsonValue value = it.value();
    switch (role) {
    case Qt::DisplayRole:
        return RunSpecView::valueText(value);
    case Qt::ToolTipRole:
        return QStringLiteral("%1 = %2").arg(key, RunSpecView::valueText(value));
    case Qt::TextAlignmentRole:
        return value.isDouble() ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
        return {};
    }
}

QVariant ParamColumns::sortValue(const RunRow &row, const QString &key)
{
    const auto it = row.params.constFind(key);
    if (it == row.params.constEnd()) {
        return {};
    }
    const QJsonValue value = it.value();
    if (value.isDouble()) {
        return value.toDouble();
    }
    if (value.isBool()) {
        return int(value.toBool());
    }
    return value.isNull() ? QVariant() : QVariant(RunSpecView::valueText(value));
}

} // namespace trainyard
