#include "ui/board/gpurows.h"

#include "ui/common/runcolors.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QStringList>

namespace trainyard::gpurows {

namespace {
constexpr double barHeight = 6;
constexpr double rowGap = 4;

QString tr(const char *text)
{
    return QCoreApplication::translate("GpuRows", text);
}

QString title(const QVariantMap &row, bool withName)
{
    QString t = tr("GPU %1").arg(row.value(QStringLiteral("index")).toInt());
    const QString name = row.value(QStringLiteral("name")).toString();
    if (withName && !name.isEmpty()) {
        t += QStringLiteral(" · ") + name;
    }
    return t;
}

// "37% · 52°C · 14.2/80.0 GiB": what changes, on the right of its row.
QString figures(const QVariantMap &row)
{
    if (!row.value(QStringLiteral("found")).toBool()) {
        return tr("not on this machine");
    }
    QStringList parts;
    const int util = row.value(QStringLiteral("utilization")).toInt();
    const int temperature = row.value(QStringLiteral("temperature")).toInt();
    parts << (util >= 0 ? QStringLiteral("%1%").arg(util) : QStringLiteral("—"));
    if (temperature >= 0) {
        parts << QStringLiteral("%1°C").arg(temperature);
    }
    parts << row.value(QStringLiteral("memoryText")).toString();
    return parts.join(QStringLiteral(" · "));
}

QColor runColor(RunColors *colors, int id)
{
    return colors ? colors->colorFor(QString::number(id)) : RunColors::paletteColor(id - 1);
}

void paintBar(QPainter *painter, const QRectF &bar, const QVariantMap &row, const QPalette &palette, RunColors *colors)
{
    QPainterPath frame;
    frame.addRoundedRect(bar, 2, 2);
    painter->fillPath(frame, palette.color(QPalette::Base));
    const double total = row.value(QStringLiteral("memoryTotal")).toDouble();
    if (total > 0) {
        painter->save();
        painter->setClipPath(frame);
        double x = bar.left();
        const auto segment = [&](double bytes, const QColor &color) {
            const double w = std::min(bar.right() - x, bar.width() * bytes / total);
            if (w > 0) {
                painter->fillRect(QRectF(x, bar.top(), w, bar.height()), color);
                x += w;
            }
        };
        for (const QVariant &v : row.value(QStringLiteral("runs")).toList()) {
            const QVariantMap run = v.toMap();
            segment(run.value(QStringLiteral("bytes")).toDouble(),
                    runColor(colors, run.value(QStringLiteral("id")).toInt()));
        }
        segment(row.value(QStringLiteral("othersBytes")).toDouble(), QColor(0x9a, 0x9a, 0x9a));
        painter->restore();
    }
    painter->setPen(QPen(palette.color(QPalette::Mid), 1));
    painter->drawPath(frame);
}

// The runs on it, each after a mark of its colour, then who else holds it;
// "+N" for names that do not fit.
void paintOccupants(QPainter *painter, const QRectF &line, const QVariantMap &row, const QFontMetricsF &fm,
                    const QPalette &palette, RunColors *colors)
{
    const QVariantList runs = row.value(QStringLiteral("runs")).toList();
    const QString others = row.value(QStringLiteral("others")).toString();
    const QColor muted = palette.color(QPalette::PlaceholderText);
    if (runs.isEmpty() && others.isEmpty()) {
        painter->setPen(muted);
        painter->drawText(line, Qt::AlignLeft | Qt::AlignVCenter, tr("free"));
        return;
    }
    double x = line.left();
    const double mark = std::floor(fm.height() * 0.55);
    for (int i = 0; i < runs.size(); ++i) {
        const QVariantMap run = runs.at(i).toMap();
        const QString name = run.value(QStringLiteral("name")).toString();
        const QString more = QStringLiteral("+%1").arg(runs.size() - i);
        const double need = mark + 3 + fm.horizontalAdvance(name) + 8;
        // Keep room for "+N" unless this is the last name.
        const double reserve = i + 1 < runs.size() ? fm.horizontalAdvance(more) : 0;
        if (x + need + reserve > line.right() && x > line.left()) {
            painter->setPen(muted);
            painter->drawText(QRectF(x, line.top(), line.right() - x, line.height()), Qt::AlignLeft | Qt::AlignVCenter,
                              more);
            return;
        }
        painter->fillRect(QRectF(x, line.center().y() - mark / 2, mark, mark),
                          runColor(colors, run.value(QStringLiteral("id")).toInt()));
        x += mark + 3;
        painter->setPen(palette.color(QPalette::Text));
        const QString shown = fm.elidedText(name, Qt::ElideMiddle, line.right() - x);
        painter->drawText(QRectF(x, line.top(), line.right() - x, line.height()), Qt::AlignLeft | Qt::AlignVCenter,
                          shown);
        x += fm.horizontalAdvance(shown) + 8;
    }
    if (!others.isEmpty() && x < line.right()) {
        painter->setPen(muted);
        painter->drawText(QRectF(x, line.top(), line.right() - x, line.height()), Qt::AlignLeft | Qt::AlignVCenter,
                          fm.elidedText(others, Qt::ElideRight, line.right() - x));
    }
}
} // namespace

double height(const QFont &small, int count)
{
    const double line = QFontMetricsF(small).height();
    return count * (2 * line + barHeight + 2 + rowGap);
}

bool namesDiffer(const QVariantList &rows)
{
    QString first;
    for (const QVariant &v : rows) {
        const QString name = v.toMap().value(QStringLiteral("name")).toString();
        if (name.isEmpty()) {
            continue;
        }
        if (!first.isEmpty() && name != first) {
            return true;
        }
        first = name;
    }
    return false;
}

void paint(QPainter *painter, const QRectF &area, const QVariantList &rows, bool withNames, const QFont &small,
           const QPalette &palette, RunColors *colors)
{
    const QFontMetricsF fm(small);
    const double line = fm.height();
    QFont bold = small;
    bold.setBold(true);
    const QFontMetricsF fmBold(bold);
    double y = area.top();
    for (const QVariant &v : rows) {
        const QVariantMap row = v.toMap();
        // Line 1: the GPU on the left, its figures on the right.
        const QString right = figures(row);
        const double rightWidth = fm.horizontalAdvance(right);
        const double leftWidth = area.width() - rightWidth - 6;
        painter->setFont(bold);
        painter->setPen(palette.color(QPalette::Text));
        painter->drawText(QRectF(area.left(), y, leftWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
                          fmBold.elidedText(title(row, withNames), Qt::ElideRight, leftWidth));
        painter->setFont(small);
        painter->setPen(palette.color(QPalette::PlaceholderText));
        painter->drawText(QRectF(area.right() - rightWidth, y, rightWidth, line), Qt::AlignRight | Qt::AlignVCenter,
                          right);
        y += line + 1;
        paintBar(painter, QRectF(area.left(), y, area.width(), barHeight), row, palette, colors);
        y += barHeight + 1;
        paintOccupants(painter, QRectF(area.left(), y, area.width(), line), row, fm, palette, colors);
        y += line + rowGap;
    }
}

QString text(const QVariantMap &row)
{
    QStringList parts{title(row, true), figures(row)};
    QStringList names;
    for (const QVariant &v : row.value(QStringLiteral("runs")).toList()) {
        names << v.toMap().value(QStringLiteral("name")).toString();
    }
    if (!names.isEmpty()) {
        parts << names.join(QStringLiteral(", "));
    }
    if (const QString others = row.value(QStringLiteral("others")).toString(); !others.isEmpty()) {
        parts << tr("others: %1").arg(others);
    }
    return parts.join(QStringLiteral(" · "));
}

} // namespace trainyard::gpurows
