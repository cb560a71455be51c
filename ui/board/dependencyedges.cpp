#include "ui/board/dependencyedges.h"

#include "orchestration/document/experimentdocument.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/laneview.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>
#include <QtMath>

#include <algorithm>

namespace trainyard {

namespace {
// More selected cards than this draw no edges: a web, not an answer.
constexpr int kMaxSelected = 20;
} // namespace

DependencyEdges::DependencyEdges(BoardView *view, BoardModel *model, QWidget *parent)
    : QWidget(parent)
    , m_view(view)
    , m_model(model)
{
    setObjectName(QStringLiteral("dependencyEdges"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    parent->installEventFilter(this);
    setGeometry(parent->rect());
}

bool DependencyEdges::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize) {
        setGeometry(parentWidget()->rect());
        raise();
    }
    return QWidget::eventFilter(watched, event);
}

void DependencyEdges::refresh()
{
    m_edges.clear();
    const ExperimentDocument *document = m_model->document();
    const QList<RunId> selected = m_view->selectedRuns();
    if (document && !selected.isEmpty() && selected.size() <= kMaxSelected) {
        const auto add = [this](RunId first, RunId then) {
            const std::pair<RunId, RunId> edge{first, then};
            if (!m_edges.contains(edge)) {
                m_edges.append(edge);
            }
        };
        for (RunId id : selected) {
            for (RunId before : document->runsBefore(id)) {
                add(before, id);
            }
            for (RunId next : document->runsAfter(id)) {
                add(id, next);
            }
        }
    }
    raise();
    update();
}

QRectF DependencyEdges::cardRect(RunId id) const
{
    const QModelIndex index = m_model->runIndex(id);
    LaneView *lane = index.isValid() ? m_view->laneView(index.parent().row()) : nullptr;
    if (!lane) {
        return {};
    }
    QRect rect = lane->visualRect(index);
    const QRect visible = lane->viewport()->rect();
    // Scrolled out of its lane: a sliver at the lane's top or bottom edge.
    if (rect.center().y() < visible.top()) {
        rect = QRect(rect.left(), visible.top() - 3, rect.width(), 12);
    } else if (rect.center().y() > visible.bottom()) {
        rect = QRect(rect.left(), visible.bottom() - 9, rect.width(), 12);
    }
    return QRectF(QRect(lane->viewport()->mapTo(parentWidget(), rect.topLeft()), rect.size())).adjusted(3, 3, -3, -3);
}

void DependencyEdges::paintEvent(QPaintEvent *)
{
    if (m_edges.isEmpty()) {
        return;
    }
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    QColor color = palette().color(QPalette::Highlight);
    color.setAlpha(200);
    painter.setPen(QPen(color, 2));
    for (const auto &[first, then] : std::as_const(m_edges)) {
        const QRectF from = cardRect(first);
        const QRectF to = cardRect(then);
        if (from.isEmpty() || to.isEmpty()) {
            continue;
        }
        QPointF start, end, c1, c2;
        if (qAbs(from.center().x() - to.center().x()) < 1) {
            // Down (or up) a lane: out of the right edge and back in, clear of the cards between.
            start = QPointF(from.right(), from.center().y());
            end = QPointF(to.right(), to.center().y());
            const double out = 18 + std::min(40.0, qAbs(end.y() - start.y()) / 8);
            c1 = start + QPointF(out, 0);
            c2 = end + QPointF(out, 0);
        } else {
            const bool right = to.center().x() > from.center().x();
            start = QPointF(right ? from.right() : from.left(), from.center().y());
            end = QPointF(right ? to.left() : to.right(), to.center().y());
            const double dx = (end.x() - start.x()) / 2;
            c1 = start + QPointF(dx, 0);
            c2 = end - QPointF(dx, 0);
        }
        QPainterPath path(start);
        path.cubicTo(c1, c2, end);
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        // The arrowhead, along the curve's last direction.
        const QPointF direction = end - c2;
        const double angle = std::atan2(direction.y(), direction.x());
        constexpr double size = 8;
        QPolygonF head;
        head << end << end - QPointF(size * std::cos(angle - 0.45), size * std::sin(angle - 0.45))
             << end - QPointF(size * std::cos(angle + 0.45), size * std::sin(angle + 0.45));
        painter.setBrush(color);
        painter.drawPolygon(head);
    }
}

} // namespace trainyard
