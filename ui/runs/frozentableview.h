#pragma once

#include <QTableView>

namespace trainyard {

/// A table whose first columns stay in view while the others scroll
/// sideways, as Qt's "Frozen Column" example does it: a second QTableView
/// on the same model and selection over the left edge, showing only those
/// columns, following this view's rows, widths, hidden columns, scrolling
/// and sort order. Clicking its header sorts; its header's and cells'
/// context menus are this view's (frozenView() names it for connections).
class FrozenTableView : public QTableView
{
    Q_OBJECT
public:
    explicit FrozenTableView(int frozenColumns, QWidget *parent = nullptr);

    void setModel(QAbstractItemModel *model) override;
    QTableView *frozenView() const { return m_frozen; }
    int frozenColumns() const { return m_columns; }
    /// The frozen view again: which columns it shows and how wide it is
    /// (after columns were shown or hidden, or the model reset).
    void syncFrozen();

protected:
    void resizeEvent(QResizeEvent *event) override;
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    void updateGeometries() override;

private:
    int frozenWidth() const;
    void updateFrozenGeometry();

    int m_columns;
    QTableView *m_frozen;
};

} // namespace trainyard
