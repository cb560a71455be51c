#include "ui/board/laneheader.h"

#include "ui/board/boardmodel.h"
#include "ui/board/gpurows.h"
#include "ui/board/lanestatus.h"
#include "ui/board/sparkline.h"

#include <QContextMenuEvent>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace trainyard {

namespace {
QVector<double> toVector(const QVariant &list)
{
    QVector<double> out;
    for (const QVariant &v : list.toList()) {
        out.append(v.toDouble());
    }
    return out;
}
} // namespace

LaneHeader::LaneHeader(const QPersistentModelIndex &lane, RunColors *colors, QWidget *parent)
    : QWidget(parent)
    , m_lane(lane)
    , m_colors(colors)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    refresh();
}

QFont LaneHeader::smallFont() const
{
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.85);
    return small;
}

QSize LaneHeader::sizeHint() const
{
    const int line = fontMetrics().height();
    if (m_gpuRows > 0) {
        // Title and device lines, then the rows.
        const double small = QFontMetricsF(smallFont()).height();
        return QSize(240, int(std::ceil(line + small + 14 + gpurows::height(smallFont(), m_gpuRows))));
    }
    return QSize(240, 2 * line + 44);
}

void LaneHeader::refresh()
{
    const int rows = m_lane.isValid() ? int(m_lane.data(BoardModel::GpuRowsRole).toList().size()) : 0;
    if (rows != m_gpuRows || minimumHeight() != sizeHint().height()) {
        m_gpuRows = rows;
        setMinimumHeight(sizeHint().height());
        updateGeometry();
    }
    update();
}

QString LaneHeader::summary() const
{
    if (!m_lane.isValid()) {
        return {};
    }
    QString text = QStringLiteral("%1 — %2").arg(title(), m_lane.data(BoardModel::DeviceNameRole).toString());
    for (const QString &row : gpuRowTexts()) {
        text += QLatin1Char('\n') + row;
    }
    return text;
}

QStringList LaneHeader::gpuRowTexts() const
{
    QStringList texts;
    for (const QVariant &row : m_lane.data(BoardModel::GpuRowsRole).toList()) {
        texts << gpurows::text(row.toMap());
    }
    return texts;
}

QString LaneHeader::title() const
{
    // "cpu 2"; a named lane says its device too; where its runs really go.
    const QString device = m_lane.data(BoardModel::DeviceRole).toString();
    const QString effective = m_lane.data(BoardModel::EffectiveDeviceRole).toString();
    QString title = m_lane.data(BoardModel::LaneTitleRole).toString();
    if (!m_lane.data(BoardModel::LaneNameRole).toString().isEmpty()) {
        title += QStringLiteral(" · ") + device;
    }
    if (!effective.isEmpty() && effective != device) {
        title += QStringLiteral(" → ") + effective;
    }
    return title;
}

void LaneHeader::paintEvent(QPaintEvent *)
{
    if (!m_lane.isValid()) {
        return;
    }
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette &pal = palette();
    const QRectF area = QRectF(rect()).adjusted(3, 2, -3, -2);
    QPainterPath path;
    path.addRoundedRect(area, 6, 6);
    painter.fillPath(path, pal.color(QPalette::AlternateBase));
    painter.setPen(pal.color(QPalette::Mid));
    painter.drawPath(path);

    const QString name = m_lane.data(BoardModel::DeviceNameRole).toString();
    const int slotCount = m_lane.data(BoardModel::SlotsRole).toInt();
    const QVariantMap stats = m_lane.data(BoardModel::DeviceStatsRole).toMap();

    const QRectF inner = area.adjusted(8, 4, -8, -4);
    QFont bold = font();
    bold.setBold(true);
    const QFont small = smallFont();
    const QFontMetricsF fm(bold);
    const QFontMetricsF fmSmall(small);

    painter.setFont(bold);
    painter.setPen(pal.color(QPalette::Text));
    const QString title = this->title();
    const QString slotText = tr("%n slot(s)", nullptr, slotCount);
    const double slotWidth = fmSmall.horizontalAdvance(slotText);
    const double titleWidth = inner.width() - slotWidth - 6;
    painter.drawText(QRectF(inner.left(), inner.top(), titleWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(title, Qt::ElideMiddle, titleWidth));
    painter.setFont(small);
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRectF(inner.right() - slotWidth, inner.top(), slotWidth, fm.height()),
                     Qt::AlignRight | Qt::AlignVCenter, slotText);
    // Its rounds first: which round is running is what a user looks for.
    const QString rounds = m_lane.data(BoardModel::RoundsRole).toString();
    QString subtitle = rounds.isEmpty() ? name : rounds + QStringLiteral(" · ") + name;
    if (const QString busy = stats.value(QStringLiteral("busyWith")).toString(); !busy.isEmpty()) {
        subtitle += QStringLiteral(" · ") + busy;
    }
    const QString advice = m_lane.data(BoardModel::SlotAdviceRole).toString();
    if (!advice.isEmpty()) {
        subtitle += QStringLiteral(" · ") + advice;
    }
    // The whole of what may be elided: title, device and advice.
    const QString tip = advice.isEmpty() ? summary() : summary() + QLatin1Char('\n') + advice;
    if (toolTip() != tip) {
        setToolTip(tip);
    }
    painter.drawText(QRectF(inner.left(), inner.top() + fm.height(), inner.width(), fmSmall.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, fmSmall.elidedText(subtitle, Qt::ElideRight, inner.width()));

    if (const QVariantList rows = m_lane.data(BoardModel::GpuRowsRole).toList(); !rows.isEmpty()) {
        // A pool: its GPUs' rows say what the sparklines of one GPU would.
        const QRectF area(inner.left(), inner.top() + fm.height() + fmSmall.height() + 4, inner.width(),
                          inner.bottom() - inner.top() - fm.height() - fmSmall.height() - 4);
        gpurows::paint(&painter, area, rows, gpurows::namesDiffer(rows), small, pal, m_colors);
        return;
    }

    // Three sparklines: utilization, memory, temperature.
    struct Gauge
    {
        QString label;
        QString value;
        QVector<double> history;
        QColor color;
        double lo, hi;
    };
    const int util = stats.value(QStringLiteral("utilization"), -1).toInt();
    const qint64 used = stats.value(QStringLiteral("memoryUsed"), -1).toLongLong();
    const qint64 total = stats.value(QStringLiteral("memoryTotal"), -1).toLongLong();
    const int temperature = stats.value(QStringLiteral("temperature"), -1).toInt();
    const QString unknown = QStringLiteral("—");
    const Gauge gauges[] = {
        {tr("util"), util >= 0 ? QStringLiteral("%1%").arg(util) : unknown,
         toVector(stats.value(QStringLiteral("utilizationHistory"))), QColor(0x1f, 0x77, 0xd0), 0, 100},
        {tr("mem"), LaneStatus::memoryText(used, total), toVector(stats.value(QStringLiteral("memoryHistory"))),
         QColor(0x2e, 0x8b, 0x3e), 0, 100},
        {tr("temp"), temperature >= 0 ? QStringLiteral("%1°C").arg(temperature) : unknown,
         toVector(stats.value(QStringLiteral("temperatureHistory"))), QColor(0xe0, 0x6c, 0x00), 20, 95},
    };
    const double top = inner.top() + fm.height() + fmSmall.height() + 4;
    const double width = inner.width() / 3.0;
    const double height = inner.bottom() - top;
    for (int i = 0; i < 3; ++i) {
        const Gauge &g = gauges[i];
        const QRectF cell(inner.left() + i * width, top, width - 6, height);
        painter.setPen(pal.color(QPalette::PlaceholderText));
        // "mem 14.2/80.0 GiB" is wider than a narrow lane's cell: the value alone then.
        const QString labelled = QStringLiteral("%1 %2").arg(g.label, g.value);
        painter.drawText(QRectF(cell.left(), cell.top(), cell.width(), fmSmall.height()), Qt::AlignLeft,
                         fmSmall.horizontalAdvance(labelled) <= cell.width()
                             ? labelled
                             : fmSmall.elidedText(g.value, Qt::ElideRight, cell.width()));
        const QRectF spark(cell.left(), cell.top() + fmSmall.height() + 1, cell.width(),
                           cell.height() - fmSmall.height() - 1);
        painter.setPen(QPen(pal.color(QPalette::Midlight), 1));
        painter.drawLine(spark.bottomLeft(), spark.bottomRight());
        paintSparkline(&painter, spark, g.history, g.color, g.lo, g.hi);
    }
}

void LaneHeader::contextMenuEvent(QContextMenuEvent *event)
{
    if (m_lane.isValid()) {
        Q_EMIT contextMenuRequested(m_lane.row(), event->globalPos());
    }
}

} // namespace trainyard
