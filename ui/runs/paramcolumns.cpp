#include "ui/runs/paramcolumns.h"

#include "orchestration/runspec/runspecview.h"

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

// Flattened keys ("train.lr") back into the objects they came from: their
// order is RunSpecView::flattened's of these objects.
QJsonObject nested(const QHash<QString, QJsonValue> &params)
{
    QJsonObject out;
    for (auto it = params.constBegin(); it != params.constEnd(); ++it) {
        if (it.key().startsWith(RunRow::summaryKey(QString()))) {
            continue; // after the spec's keys, in name order
        }
        const QStringList parts = it.key().split(QLatin1Char('.'));
        std::function<void(QJsonObject *, qsizetype)> put = [&](QJsonObject *into, qsizetype i) {
            if (i == parts.size() - 1) {
                into->insert(parts.at(i), it.value());
                return;
            }
            QJsonObject inner = into->value(parts.at(i)).toObject();
            put(&inner, i + 1);
            into->insert(parts.at(i), inner);
        };
        put(&out, 0);
    }
    return out;
}

} // namespace

bool ParamColumns::isParam(const QString &key)
{
    return key != QLatin1String("name") && key != QLatin1String("model.type");
}

ParamColumns ParamColumns::of(const QList<RunRow> &live, const QList<RunRow> &past)
{
    ParamColumns columns;
    for (const QList<RunRow> *rows : {&live, &past}) {
        for (const RunRow &row : *rows) {
            columns.add(row);
        }
    }
    return columns;
}

void ParamColumns::add(const RunRow &row)
{
    bool newKeys = false;
    for (auto it = row.params.constBegin(); it != row.params.constEnd() && !newKeys; ++it) {
        newKeys = !m_first.contains(it.key());
    }
    if (newKeys) {
        mergeKeys(&m_union, nested(row.params));
        for (auto it = row.summary.constBegin(); it != row.summary.constEnd(); ++it) {
            m_summaryNames.insert(it.key(), true);
        }
        m_keys.clear();
        for (const RunSpecView::Param &p : RunSpecView(m_union).flattened()) {
            if (isParam(p.key)) {
                m_keys.append(p.key);
            }
        }
        // After the spec's: the names of the runs' summaries (run.summary), in name order.
        for (auto it = m_summaryNames.constBegin(); it != m_summaryNames.constEnd(); ++it) {
            m_keys.append(RunRow::summaryKey(it.key()));
        }
        for (const QString &key : std::as_const(m_keys)) {
            if (!m_first.contains(key)) {
                // The rows before had none: null, the first row's value.
                m_first.insert(key, m_rows == 0 ? row.params.value(key) : QJsonValue());
            }
        }
    }
    if (m_rows > 0) {
        for (const QString &key : std::as_const(m_keys)) {
            if (!m_differing.contains(key) && row.params.value(key) != m_first.value(key)) {
                m_differing.insert(key);
            }
        }
    }
    ++m_rows;
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
