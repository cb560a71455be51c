#pragma once

#include <QWidget>

class QContextMenuEvent;
class QLineEdit;
class QLabel;
class QSortFilterProxyModel;
class QModelIndex;
class QTreeView;

namespace trainyard {

class ModelPaletteModel;

/// The dockable palette: a filter box over the tree of models and presets,
/// from which the user drags a model onto a lane.
class ModelPalette : public QWidget
{
    Q_OBJECT
public:
    explicit ModelPalette(ModelPaletteModel *model, QWidget *parent = nullptr);

    QTreeView *view() const { return m_view; }
    /// Shows why the palette is empty (e.g. the worker cannot be started).
    void setProblem(const QString &message);
    /// Queues the model or preset of the palette's current item (Return,
    /// Space, the Add run action): false when no model is current.
    bool queueCurrent();

Q_SIGNALS:
    /// Double-click, Return or Space on a model: the caller queues it on the
    /// current lane.
    void specActivated(const QJsonObject &spec, int repeat);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    bool queue(const QModelIndex &index);
    void showMenu(const QContextMenuEvent *event);

    ModelPaletteModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTreeView *m_view;
    QLabel *m_problem;
};

} // namespace trainyard
