#include "ui/app/elidingstatusbar.h"

#include <QPainter>
#include <QSizeGrip>
#include <QStyleOption>

#include <algorithm>

namespace trainyard {

ElidingStatusBar::ElidingStatusBar(QWidget *parent)
    : QStatusBar(parent)
{
    connect(this, &QStatusBar::messageChanged, this, [this] {
        updateTip();
        update();
    });
}

QRect ElidingStatusBar::messageRect() const
{
    // As QStatusBar's own: from the left to the first widget still shown
    // (a message hides the normal ones, so that is a permanent one).
    const bool rtl = layoutDirection() == Qt::RightToLeft;
    int left = 6;
    int right = width() - 12;
    for (const QWidget *child : findChildren<QWidget *>(Qt::FindDirectChildrenOnly)) {
        if (child->isVisible() && !child->isWindow()) {
            if (rtl) {
                left = std::max(left, child->geometry().right() + 1 + 6);
            } else {
                right = std::min(right, child->x() - 6);
            }
        }
    }
    return QRect(left, 0, std::max(0, right - left), height());
}

QString ElidingStatusBar::shownMessage() const
{
    return fontMetrics().elidedText(currentMessage(), Qt::ElideRight, messageRect().width());
}

void ElidingStatusBar::paintEvent(QPaintEvent *event)
{
    if (currentMessage().isEmpty()) {
        QStatusBar::paintEvent(event);
        return;
    }
    QPainter painter(this);
    QStyleOption panel;
    panel.initFrom(this);
    style()->drawPrimitive(QStyle::PE_PanelStatusBar, &panel, &painter, this);
    for (QWidget *child : findChildren<QWidget *>(Qt::FindDirectChildrenOnly)) {
        if (child->isVisible() && !child->isWindow() && !qobject_cast<QSizeGrip *>(child)) {
            QStyleOption frame;
            frame.rect = child->geometry().adjusted(-2, -1, 2, 1);
            frame.palette = palette();
            frame.state = QStyle::State_None;
            style()->drawPrimitive(QStyle::PE_FrameStatusBarItem, &frame, &painter, child);
        }
    }
    painter.setPen(palette().windowText().color());
    painter.drawText(messageRect(), Qt::AlignLeading | Qt::AlignVCenter | Qt::TextSingleLine, shownMessage());
}

void ElidingStatusBar::resizeEvent(QResizeEvent *event)
{
    QStatusBar::resizeEvent(event);
    updateTip();
}

void ElidingStatusBar::updateTip()
{
    // The whole message where it is cut short.
    const QString message = currentMessage();
    setToolTip(shownMessage() != message ? message : QString());
}

} // namespace trainyard
