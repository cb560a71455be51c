#pragma once

#include <QString>
#include <QStringList>

namespace trainyard {

/// Which metric each of the two plots shows. The user picks one per plot
/// (as TensorBoard's scalar tags) from the metrics the selected runs have
/// (CurveSource::metrics: the loss, "lr", a script's "grad_norm",
/// "samples_per_s", "valid/mrr", ...); a pick stays while the selection
/// lacks it and is shown again whenever a selected run has it. Otherwise the
/// upper plot shows the loss (or, for runs without one, their first training
/// metric), and the lower one an evaluation metric: the picked name of
/// another split, else MRR or accuracy (validation first), else the first
/// there is, else none.
class PlotMetricChoice
{
public:
    enum class Plot {
        Upper, ///< Smoothed curves, repeats as bands: "loss" by default
        Lower  ///< Each point as it is: an evaluation metric by default
    };

    /// The user's pick for `plot`; true when a shown metric changed.
    bool setWanted(Plot plot, const QString &metric);
    QString wanted(Plot plot) const { return plot == Plot::Upper ? m_wantedUpper : m_wantedLower; }
    /// The metrics the selected runs have; true when a shown metric changed.
    bool setAvailable(const QStringList &metrics);
    const QStringList &available() const { return m_available; }
    QString shown(Plot plot) const { return plot == Plot::Upper ? m_shownUpper : m_shownLower; }

    /// What `plot` shows for the user's pick `wanted`, given `available`.
    static QString shownFor(Plot plot, const QStringList &available, const QString &wanted);

private:
    bool update();

    QString m_wantedUpper;
    QString m_wantedLower;
    QStringList m_available;
    QString m_shownUpper = QStringLiteral("loss");
    QString m_shownLower;
};

} // namespace trainyard
