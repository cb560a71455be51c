#include "ui/sweep/sweeptablemodel.h"

#include "metrics/metricscsvwriter.h"
#include "orchestration/runspec/runspecview.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace trainyard {

QStringList sweptKeys(const SweepSpec &sweep)
{
    QStringList keys;
    for (const SweepParameter &p : sweep.space) {
        if (p.kind != SweepParameter::Kind::Fixed) {
            keys << p.key;
        }
    }
    return keys;
}

SweepTableModel::SweepTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SweepTableModel::setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials)
{
    beginResetModel();
    m_sweep = sweep;
    m_trials = trials;
    m_keys = sweptKeys(sweep);
    rebuild();
    endResetModel();
}

void SweepTableModel::setVisibleTrials(const std::optional<QSet<int>> &visible)
{
    beginResetModel();
    m_visible = visible;
    rebuild();
    endResetModel();
}

void SweepTableModel::rebuild()
{
    m_rows.clear();
    for (const TrialInfo &t : sorted(m_trials, m_sweep.maximize)) {
        if (!m_visible || m_visible->contains(t.index)) {
            m_rows << t;
        }
    }
}

int SweepTableModel::rowOfTrial(int trialIndex) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).index == trialIndex) {
            return row;
        }
    }
    return -1;
}

QList<TrialInfo> SweepTableModel::sorted(const QList<TrialInfo> &trials, bool maximize)
{
    // 0: has an objective, 1: none yet, 2: failed (out of the search, never a best).
    const auto group = [](const TrialInfo &t) {
        return t.phase == TrialInfo::Phase::Failed ? 2 : std::isnan(t.objective) ? 1 : 0;
    };
    QList<TrialInfo> out = trials;
    std::stable_sort(out.begin(), out.end(), [&](const TrialInfo &a, const TrialInfo &b) {
        const int ga = group(a);
        const int gb = group(b);
        if (ga != gb) {
            return ga < gb;
        }
        if (ga == 0 && a.objective != b.objective) {
            return maximize ? a.objective > b.objective : a.objective < b.objective;
        }
        return a.index < b.index;
    });
    return out;
}

QString SweepTableModel::phaseText(TrialInfo::Phase phase)
{
    // A trial's run is what the cards and the runs table show: their words
    // (runStateName), so an early-stopped trial reads "stopped" everywhere.
    switch (phase) {
    case TrialInfo::Phase::Waiting:
        return runStateName(RunState::Waiting);
    case TrialInfo::Phase::Training:
        return tr("training"); // queued on a lane, starting or running
    case TrialInfo::Phase::Paused:
        return tr("%1 (promotable)").arg(runStateName(RunState::Stopped));
    case TrialInfo::Phase::Stopped:
        return runStateName(RunState::Stopped);
    case TrialInfo::Phase::Finished:
        return runStateName(RunState::Finished);
    case TrialInfo::Phase::Failed:
        return runStateName(RunState::Failed);
    }
    return QString();
}

QByteArray SweepTableModel::toCsv() const
{
    // Every trial (brushes or not), in the table's order, with full values.
    QByteArray text = "trial";
    for (const QString &key : m_keys) {
        text += ',' + MetricsCsvWriter::field(key);
    }
    text += ',' + MetricsCsvWriter::field(m_sweep.objective.isEmpty() ? QStringLiteral("objective") : m_sweep.objective)
            + ",rung,state,reason\n";
    for (const TrialInfo &t : sorted(m_trials, m_sweep.maximize)) {
        text += MetricsCsvWriter::field(SweepSpec::trialName(m_sweep.name, t.index));
        for (const QString &key : m_keys) {
            const QJsonValue v = t.values.value(key);
            text += ',' + (v.isUndefined() ? QByteArray() : MetricsCsvWriter::field(RunSpecView::valueText(v)));
        }
        text += ','
                + (std::isnan(t.objective) ? QByteArray()
                                           : QByteArray::number(t.objective, 'g', QLocale::FloatingPointShortest));
        text += ',' + (t.rung < 0 ? QByteArray() : QByteArray::number(t.rung + 1));
        text += ',' + MetricsCsvWriter::field(phaseText(t.phase)) + ',' + MetricsCsvWriter::field(t.reason) + '\n';
    }
    return text;
}

int SweepTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SweepTableModel::columnCount(const QModelIndex &parent) const
{
    // trial, keys..., objective, rung, phase, reason
    return parent.isValid() ? 0 : int(m_keys.size()) + 5;
}

QVariant SweepTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size()) {
        return {};
    }
    const TrialInfo &t = m_rows.at(index.row());
    if (role == TrialIndexRole) {
        return t.index;
    }
    const int col = index.column();
    const int keyCount = int(m_keys.size());
    if (role == SortValueRole) {
        if (col >= 1 && col <= keyCount) {
            return t.values.value(m_keys.at(col - 1)).toVariant();
        }
        if (col == keyCount + 1) {
            return t.objective;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole && col >= 1 && col <= keyCount + 2) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    if (col == 0) {
        return SweepSpec::trialName(m_sweep.name, t.index);
    }
    if (col <= keyCount) {
        const QJsonValue v = t.values.value(m_keys.at(col - 1));
        return role == Qt::DisplayRole ? RunSpecView::shortValueText(v) : RunSpecView::valueText(v);
    }
    switch (col - keyCount) {
    case 1:
        return std::isnan(t.objective) ? QString() : QString::number(t.objective, 'g', 4);
    case 2:
        return t.rung < 0 ? QString() : QString::number(t.rung + 1); // from 1, as the reasons say
    case 3:
        return phaseText(t.phase);
    case 4:
        return t.reason;
    }
    return {};
}

QVariant SweepTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    const int keyCount = int(m_keys.size());
    if (section == 0) {
        return tr("Trial");
    }
    if (section <= keyCount) {
        return m_keys.at(section - 1);
    }
    switch (section - keyCount) {
    case 1:
        return m_sweep.objective.isEmpty()
                   ? tr("Objective")
                   : QStringLiteral("%1 (%2)").arg(m_sweep.objective, m_sweep.maximize ? tr("max") : tr("min"));
    case 2:
        return tr("Rung");
    case 3:
        return tr("State");
    case 4:
        return tr("Reason");
    }
    return {};
}

} // namespace trainyard
