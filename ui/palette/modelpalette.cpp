#include "ui/palette/modelpalette.h"

#include "ui/palette/modelpalettemodel.h"

#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace trainyard {

ModelPalette::ModelPalette(ModelPaletteModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_view(new QTreeView(this))
    , m_problem(new QLabel(this))
{
    m_proxy->setSourceModel(model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setPlaceholderText(tr("Filter models"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_view->setModel(m_proxy);
    m_view->setHeaderHidden(true);
    m_view->setDragEnabled(true);
    m_view->setDragDropMode(QAbstractItemView::DragOnly);
    m_view->setDefaultDropAction(Qt::CopyAction);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setObjectName(QStringLiteral("modelPaletteView"));
    connect(m_proxy, &QAbstractItemModel::modelReset, m_view, &QTreeView::expandAll);
    m_view->expandAll();
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex &index) {
        const QJsonObject spec = index.data(ModelPaletteModel::SpecRole).toJsonObject();
        if (!spec.isEmpty()) {
            Q_EMIT specActivated(spec, index.data(ModelPaletteModel::RepeatRole).toInt());
        }
    });

    m_problem->setWordWrap(true);
    m_problem->setVisible(false);
    m_problem->setStyleSheet(QStringLiteral("color: #b3261e;"));

    auto *hint = new QLabel(tr("Drag a model onto a lane to queue a run."), this);
    hint->setWordWrap(true);
    hint->setEnabled(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_filter);
    layout->addWidget(m_problem);
    layout->addWidget(m_view, 1);
    layout->addWidget(hint);
}

void ModelPalette::setProblem(const QString &message)
{
    m_problem->setText(message);
    m_problem->setVisible(!message.isEmpty());
}

} // namespace trainyard
