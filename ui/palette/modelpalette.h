#pragma once

#include <QWidget>

class QLineEdit;
class QLabel;
class QSortFilterProxyModel;
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

Q_SIGNALS:
    /// Double-click on a model: the caller queues it on the current lane.
    void specActivated(const QJsonObject &spec, int repeat);

private:
    ModelPaletteModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTreeView *m_view;
    QLabel *m_problem;
};

} // namespace trainyard
