// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plotlegend.h"

#include <QCoreApplication>
#include <QEvent>
#include <QResizeEvent>

#include <qcustomplot.h>

#include <algorithm>

namespace trainyard {

namespace {

// The legend may take this share of the plot's width (in columns of its
// widest entry); the axes keep the rest.
constexpr double maxWidthShare = 0.4;

/// The legend's last entry when not every graph fits: how many are left out.
class MoreItem : public QCPAbstractLegendItem
{
public:
    MoreItem(QCPLegend *legend, int count)
        : QCPAbstractLegendItem(legend)
        , m_text(QCoreApplication::translate("trainyard::PlotLegend", "+%n more", nullptr, count))
    {
        setTextColor(QColor(0, 0, 0, 150));
    }

protected:
    void draw(QCPPainter *painter) override
    {
        painter->setFont(mFont);
        painter->setPen(mTextColor);
        painter->drawText(mRect, Qt::AlignLeft | Qt::AlignVCenter, m_text);
    }
    QSize minimumOuterSizeHint() const override
    {
        const QSize text = QFontMetrics(mFont).size(0, m_text);
        return QSize(text.width() + mMargins.left() + mMargins.right(),
                     text.height() + mMargins.top() + mMargins.bottom());
    }

private:
    QString m_text;
};

} // namespace

PlotLegend::PlotLegend(QCustomPlot *plot)
    : QObject(plot)
    , m_plot(plot)
{
    QCPLegend *legend = m_plot->legend;
    legend->setFont(QFont(m_plot->font().family(), 8));
    legend->setBorderPen(QPen(QColor(0, 0, 0, 60)));
    legend->setIconSize(22, 11); // rows as tall as the text: more runs per column
    legend->setRowSpacing(0);
    legend->setColumnSpacing(8);
    // Inside the axis rect (QCustomPlot's place for it) the legend hid
    // curves; it goes beside the axes when there is one to show (place).
    m_plot->axisRect()->insetLayout()->take(legend);
    legend->setVisible(false);
    m_plot->setAutoAddPlottableToLegend(false); // the entries are setEntries()'s
    m_plot->installEventFilter(this);
}

void PlotLegend::setEntries(const QList<QCPAbstractPlottable *> &entries)
{
    if (entries == m_entries) {
        return;
    }
    m_entries = entries;
    // Every entry's size, from an item made for the measure (the font and
    // icon of the legend, the graph's name).
    m_item = QSize(1, 1);
    for (QCPAbstractPlottable *entry : m_entries) {
        QCPPlottableLegendItem probe(m_plot->legend, entry);
        m_item = m_item.expandedTo(static_cast<QCPLayoutElement &>(probe).minimumOuterSizeHint());
    }
    layOut(room(m_plot->size()));
}

QSize PlotLegend::room(const QSize &size) const
{
    const QCPLegend *legend = m_plot->legend;
    const QSize item = m_item;
    const QMargins m = legend->margins();
    const int height = size.height() - m_chrome - m.top() - m.bottom() - 4; // the column's own margins
    const int width = int(maxWidthShare * size.width()) - m.left() - m.right() - 4;
    const int rows = std::max(1, (height + legend->rowSpacing()) / (item.height() + legend->rowSpacing()));
    const int columns = std::max(1, (width + legend->columnSpacing()) / (item.width() + legend->columnSpacing()));
    return QSize(columns, rows);
}

void PlotLegend::layOut(const QSize &room)
{
    QCPLegend *legend = m_plot->legend;
    m_room = room;
    legend->clearItems();
    const int capacity = room.width() * room.height();
    const int n = int(m_entries.size());
    m_shown = n <= capacity ? n : capacity - 1;
    for (int i = 0; i < m_shown; ++i) {
        legend->addItem(new QCPPlottableLegendItem(legend, m_entries.at(i)));
    }
    if (m_shown < n) {
        legend->addItem(new MoreItem(legend, n - m_shown));
    }
    // Down each column first, a new column when one is full.
    legend->setWrap(room.height());
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
    place(n > 0);
}

void PlotLegend::place(bool shown)
{
    // The legend in a column right of the axis rect, at its top; without a
    // legend the column goes, so the axes get the width back (a hidden
    // layout element keeps its room).
    QCPLayoutGrid *layout = m_plot->plotLayout();
    QCPLegend *legend = m_plot->legend;
    const bool placed = layout->hasElement(1, 1);
    if (shown && !placed) {
        auto *side = new QCPLayoutGrid;
        layout->addElement(1, 1, side);
        side->addElement(0, 0, legend);
        side->addElement(1, 0, new QCPLayoutElement(m_plot));
        side->setRowStretchFactor(0, 0.001);
        side->setMargins(QMargins(0, 2, 4, 0));
        layout->setColumnStretchFactor(1, 0.001);
    } else if (!shown && placed) {
        auto *side = qobject_cast<QCPLayoutGrid *>(layout->element(1, 1));
        side->take(legend);
        layout->remove(side);
        layout->simplify();
    }
    legend->setVisible(shown);
}

bool PlotLegend::fit()
{
    const int axes = m_plot->axisRect()->outerRect().height();
    if (axes > 0) {
        m_chrome = m_plot->height() - axes;
    }
    return layOutFor(m_plot->size());
}

bool PlotLegend::layOutFor(const QSize &plotSize)
{
    const QSize now = room(plotSize);
    if (m_entries.isEmpty() || now == m_room) {
        return false;
    }
    layOut(now);
    return true;
}

bool PlotLegend::eventFilter(QObject *watched, QEvent *event)
{
    // Before QCustomPlot lays itself out for the new size: the legend's
    // rows and columns for it.
    if (watched == m_plot && event->type() == QEvent::Resize) {
        layOutFor(static_cast<QResizeEvent *>(event)->size());
    }
    return QObject::eventFilter(watched, event);
}

} // namespace trainyard
