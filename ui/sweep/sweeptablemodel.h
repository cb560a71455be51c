#pragma once

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSet>
#include <QStringList>

#include <optional>

namespace trainyard {

/// The Sweep view's table: one row per trial (name, each searched key, the
/// objective, rung, phase, reason), best first by the sweep's mode, trials
/// without an objective after those with one, failed trials last. Plain
/// data in (a SweepSpec and its TrialInfo list), so it is tested without a
/// runner. A filter (the parallel-coordinates brushes) hides the other trials.
class SweepTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role {
        TrialIndexRole = Qt::UserRole + 1, ///< int: TrialInfo::index
        SortValueRole,                     ///< the cell's value as a number where it is one
    };

    explicit SweepTableModel(QObject *parent = nullptr);

    void setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials);
    /// Only the trials in `visible` are rows; nullopt: every trial.
    void setVisibleTrials(const std::optional<QSet<int>> &visible);

    const SweepSpec &sweep() const { return m_sweep; }
    /// The searched keys shown as columns (Fixed keys do not vary: left out).
    const QStringList &keys() const { return m_keys; }
    /// The trial of a row (in the order shown).
    const TrialInfo &trialAt(int row) const { return m_rows.at(row); }
    int rowOfTrial(int trialIndex) const;

    /// The order the table shows: best objective first, NaN after, failed last.
    static QList<TrialInfo> sorted(const QList<TrialInfo> &trials, bool maximize);
    static QString phaseText(TrialInfo::Phase phase);
    /// Every trial as CSV, in the table's order: trial, the searched keys, the objective, rung, state, reason.
    QByteArray toCsv() const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    SweepSpec m_sweep;
    QList<TrialInfo> m_trials;
    QList<TrialInfo> m_rows;
    QStringList m_keys;
    std::optional<QSet<int>> m_visible;
};

/// The keys of `sweep`'s space that vary (every kind but Fixed), in the space's order.
QStringList sweptKeys(const SweepSpec &sweep);

} // namespace trainyard
