#include "ui/board/carddelegate.h"

#include "ui/board/boardmodel.h"
#include "ui/board/cardtext.h"
#include "ui/board/sparkline.h"
#include "ui/common/runcolors.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace trainyard {

namespace {
constexpr int cardHeight = 78;
}

CardDelegate::CardDelegate(RunColors *colors, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_colors(colors)
{
}

QColor CardDelegate::stateColor(RunState state)
{
    switch (state) {
    case RunState::Queued:
        return QColor(0x8a, 0x8f, 0x98);
    case RunState::Waiting: // for the runs it runs after: queued once they finished
        return QColor(0x4f, 0x7c, 0x8a);
    case RunState::Starting:
    case RunState::Running:
        return QColor(0x1f, 0x77, 0xd0);
    case RunState::Paused:
    case RunState::Stopping:
        return QColor(0xc7, 0x8a, 0x00);
    case RunState::Stalled:
        return QColor(0xe0, 0x6c, 0x00);
    case RunState::Finished:
        return QColor(0x2e, 0x8b, 0x3e);
    case RunState::Failed:
        return QColor(0xc6, 0x28, 0x28);
    case RunState::Diverged:
        return QColor(0x8e, 0x3a, 0xb8);
    case RunState::Stopped:
        return QColor(0x7a, 0x5c, 0x3e);
    case RunState::Cancelled:
        return QColor(0xb0, 0xb0, 0xb0);
    case RunState::Lost:
        return QColor(0x5a, 0x64, 0x70); // slate: not ours to judge, nothing touched
    }
    return Qt::gray;
}

QString CardDelegate::formatDuration(double seconds)
{
    if (!(seconds >= 0) || !std::isfinite(seconds)) {
        return {};
    }
    if (seconds < 1) {
        return tr("< 1 s"); // "0 s" reads as "did nothing"
    }
    const qint64 s = qint64(std::llround(seconds));
    if (s < 60) {
        return tr("%1 s").arg(s);
    }
    if (s < 3600) {
        return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    }
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
}

QSize CardDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const
{
    return QSize(std::max(220, option.rect.width()), cardHeight);
}

QString CardDelegate::progressText(const RunInfo &run, double progress)
{
    QString barText;
    if (progress >= 0) {
        barText = QStringLiteral("%1%").arg(int(progress * 100));
    }
    const QString eta = formatDuration(run.etaSeconds);
    // A paused run is not on its way to an end: no ETA until it resumes.
    if (!eta.isEmpty() && isActive(run.state) && run.state != RunState::Paused) {
        barText += tr(" · ETA %1").arg(eta);
    } else if (run.state == RunState::Finished) {
        const double took = trainedSeconds(run);
        if (took >= 0) {
            barText += tr(" · took %1").arg(formatDuration(took));
        }
    }
    return barText;
}

void CardDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const RunInfo run = index.data(BoardModel::RunInfoRole).value<RunInfo>();
    const QPalette &pal = option.palette;
    const bool selected = option.state & QStyle::State_Selected;
    const QRectF card = QRectF(option.rect).adjusted(3, 3, -3, -3);

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QPainterPath outline;
    outline.addRoundedRect(card, 6, 6);
    painter->fillPath(outline, pal.color(QPalette::Base));
    painter->setPen(QPen(selected ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid), selected ? 2.0 : 1.0));
    painter->drawPath(outline);

    // Run colour: the same as its curve in the plots.
    const QColor runColor = m_colors->colorFor(QString::number(run.id));
    painter->fillRect(QRectF(card.left() + 1, card.top() + 6, 4, card.height() - 12), runColor);

    const QRectF inner = card.adjusted(10, 5, -8, -5);
    QFont bold = option.font;
    bold.setBold(true);
    QFont small = option.font;
    small.setPointSizeF(option.font.pointSizeF() * 0.85);
    const QFontMetricsF fmBold(bold);
    const QFontMetricsF fmSmall(small);

    // State badge, top right.
    const QString state = index.data(BoardModel::StateNameRole).toString();
    const double badgeWidth = fmSmall.horizontalAdvance(state) + 12;
    const QRectF badge(inner.right() - badgeWidth, inner.top(), badgeWidth, fmSmall.height() + 2);
    QPainterPath badgePath;
    badgePath.addRoundedRect(badge, badge.height() / 2, badge.height() / 2);
    painter->fillPath(badgePath, stateColor(run.state));
    painter->setFont(small);
    painter->setPen(Qt::white);
    painter->drawText(badge, Qt::AlignCenter, state);

    // A sweep's trial: the sweep's name, small, left of the state; a run of
    // rounds: its round.
    const QString sweep = index.data(BoardModel::SweepRole).toString();
    const QString group = !sweep.isEmpty() ? sweep
                          : run.round > 0  ? tr("round %1/%2").arg(run.round).arg(run.roundCount)
                                           : QString();
    double sweepWidth = 0;
    if (!group.isEmpty()) {
        const QString sweepText = fmSmall.elidedText(group, Qt::ElideMiddle, inner.width() / 3);
        sweepWidth = fmSmall.horizontalAdvance(sweepText) + 10;
        const QRectF sweepBadge(badge.left() - 4 - sweepWidth, badge.top(), sweepWidth, badge.height());
        QPainterPath sweepPath;
        sweepPath.addRoundedRect(sweepBadge, 3, 3);
        painter->setPen(QPen(pal.color(QPalette::Highlight), 1));
        painter->drawPath(sweepPath);
        painter->setPen(pal.color(QPalette::Highlight));
        painter->drawText(sweepBadge, Qt::AlignCenter, sweepText);
        sweepWidth += 4;
    }

    // Name and model line.
    painter->setFont(bold);
    painter->setPen(pal.color(QPalette::Text));
    const QRectF nameRect(inner.left(), inner.top(), inner.width() - badgeWidth - sweepWidth - 6, fmBold.height());
    painter->drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter,
                      fmBold.elidedText(run.name, Qt::ElideMiddle, nameRect.width()));
    // Two lines of small text beside the sparkline, elided in the middle
    // (both ends say something); the tooltip has them whole (CardText).
    painter->setFont(small);
    painter->setPen(pal.color(QPalette::PlaceholderText));
    const double textTop = nameRect.bottom() + 2;
    const QRectF sparkRect(inner.right() - 86, textTop + 1, 86, 2 * fmSmall.height());
    const QRectF secondRect(inner.left(), textTop, sparkRect.left() - inner.left() - 6, fmSmall.height());
    painter->drawText(secondRect, Qt::AlignLeft | Qt::AlignVCenter,
                      fmSmall.elidedText(CardText::detailLine(run), Qt::ElideMiddle, secondRect.width()));

    // The latest loss, or why it failed, or how it ended, under it.
    const QRectF lossRect = secondRect.translated(0, fmSmall.height());
    painter->setPen(run.state == RunState::Failed || run.state == RunState::Diverged ? stateColor(run.state)
                                                                                     : pal.color(QPalette::Text));
    painter->drawText(lossRect, Qt::AlignLeft | Qt::AlignVCenter,
                      fmSmall.elidedText(CardText::statusLine(run), Qt::ElideMiddle, lossRect.width()));

    // Loss sparkline.
    const QVector<double> history = index.data(BoardModel::LossHistoryRole).value<QVector<double>>();
    paintSparkline(painter, sparkRect, history, runColor);

    // Progress bar with percentage and ETA.
    const double progress = index.data(BoardModel::ProgressRole).toDouble();
    const QRectF barRect(inner.left(), inner.bottom() - fmSmall.height() - 1, inner.width(), fmSmall.height() + 1);
    QPainterPath barPath;
    barPath.addRoundedRect(barRect, 3, 3);
    painter->fillPath(barPath, pal.color(QPalette::AlternateBase).darker(104));
    if (progress > 0) {
        QPainterPath done;
        done.addRoundedRect(QRectF(barRect.left(), barRect.top(), barRect.width() * progress, barRect.height()), 3, 3);
        QColor fill = stateColor(run.state);
        fill.setAlpha(150);
        painter->fillPath(done, fill);
    }
    const QString barText = progressText(run, progress);
    painter->setPen(pal.color(QPalette::Text));
    painter->drawText(barRect, Qt::AlignCenter, barText);
    painter->restore();
}

} // namespace trainyard
