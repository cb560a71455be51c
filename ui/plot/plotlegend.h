#pragma once

#include <QList>
#include <QObject>
#include <QSize>

class QCPAbstractPlottable;
class QCustomPlot;

namespace trainyard {

/// The legend of one plot, in a column right of its axes (inside them it
/// hid curves): the graphs it is given, in their order, in as many rows as
/// the plot's height holds and as many columns as fit in two fifths of its
/// width; what does not fit is summed up by a last entry ("+12 more"; the
/// hover read-out names every run). Without entries the column goes, so the
/// axes get the width back. It lays itself out again when the plot is
/// resized.
class PlotLegend : public QObject
{
    Q_OBJECT
public:
    explicit PlotLegend(QCustomPlot *plot);

    /// Lists these graphs, and only these, in this order.
    void setEntries(const QList<QCPAbstractPlottable *> &entries);
    /// Lists none: call before the plot's graphs are removed.
    void clear() { setEntries({}); }
    QList<QCPAbstractPlottable *> entries() const { return m_entries; }
    /// How many entries the legend shows by name (the rest are "more").
    int shownCount() const { return m_shown; }
    /// After a replot: lays the legend out again when the room beside the
    /// axes changed what fits. True when the plot needs another replot.
    bool fit();
    /// Lays the legend out for the plot drawn at `plotSize` (an export's
    /// size, then the widget's again); true when that changed it.
    bool layOutFor(const QSize &plotSize);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /// Rows and columns that fit a plot of `size`.
    QSize room(const QSize &size) const;
    void layOut(const QSize &room);
    void place(bool shown);

    QCustomPlot *m_plot;
    QList<QCPAbstractPlottable *> m_entries;
    QSize m_item{1, 1}; ///< The largest entry's size
    QSize m_room;       ///< Columns and rows the last layout had room for
    int m_chrome = 60;  ///< Plot height that is not the axes' row (title, x labels)
    int m_shown = 0;
};

} // namespace trainyard
