#include "ui/runs/resolvedspecview.h"

#include "orchestration/runspec/runspecview.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace trainyard {

ResolvedSpecView::ResolvedSpecView(const ModelCatalogue &catalogue, QWidget *parent)
    : QWidget(parent)
    , m_catalogue(catalogue)
    , m_source(new QLabel(this))
    , m_tree(new QTreeWidget(this))
{
    m_source->setWordWrap(true);
    m_tree->setObjectName(QStringLiteral("spec"));
    m_tree->setHeaderLabels({tr("Key"), tr("Value"), tr("From")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    auto *copy = new QPushButton(tr("Copy spec as JSON"), this);
    copy->setObjectName(QStringLiteral("copySpec"));
    connect(copy, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(QString::fromUtf8(QJsonDocument(m_resolved).toJson())); });
    auto *row = new QHBoxLayout;
    row->addWidget(m_source, 1);
    row->addWidget(copy, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree, 1);
}

void ResolvedSpecView::setSpec(const QJsonObject &spec, const QString &chosenRecipe)
{
    m_resolved = m_catalogue.resolve(spec, chosenRecipe);
    const CatalogueRecipe *recipe = m_catalogue.recipeOf(spec, chosenRecipe);
    const CatalogueModel *model = m_catalogue.model(RunSpecView(spec).modelType());
    const bool autoRecipe =
        model && !model->recipes.isEmpty()
        && spec.value(QLatin1String("model")).toObject().value(QLatin1String("recipe")).toString(QStringLiteral("auto"))
               == QLatin1String("auto");
    if (RunSpecView(spec).isProgram()) {
        m_source->setText(tr("What spec.json holds: a program run, whose hyperparameters are its command's "
                             "arguments (docs/python.md)."));
    } else if (m_catalogue.isEmpty()) {
        m_source->setText(tr("What spec.json holds. The worker's catalogue is not loaded, so the defaults "
                             "of the keys it leaves out are not shown."));
    } else if (!m_catalogue.model(RunSpecView(spec).modelType())) {
        m_source->setText(tr("What spec.json holds: this worker does not know the model, so its defaults "
                             "are not shown."));
    } else if (autoRecipe && !recipe) {
        m_source->setText(tr("What spec.json holds, and the defaults of the worker's catalogue (worker %1) for "
                             "the keys it leaves out. Its recipe is \"auto\": the worker chooses one from the "
                             "graph when the run starts, and the values it sets replace these then.")
                              .arg(m_catalogue.workerVersion()));
    } else if (recipe) {
        m_source->setText(
            (autoRecipe ? tr("Every hyperparameter: what spec.json holds; for the keys it leaves out, the recipe "
                             "\"%1\" the worker chose for this graph (recipe auto: %2), else the defaults of the "
                             "worker's catalogue (worker %3).")
                        : tr("Every hyperparameter: what spec.json holds; for the keys it leaves out, its recipe "
                             "\"%1\" (%2), else the defaults of the worker's catalogue (worker %3)."))
                .arg(recipe->name, recipe->fits, m_catalogue.workerVersion()));
    } else {
        m_source->setText(tr("Every hyperparameter: what spec.json holds, and the defaults of the worker's "
                             "catalogue (worker %1) for the keys it leaves out.")
                              .arg(m_catalogue.workerVersion()));
    }
    // Which keys the recipe gave.
    QSet<QString> fromRecipe;
    if (recipe) {
        for (const RunSpecView::Param &p : RunSpecView(recipe->values).flattened()) {
            fromRecipe.insert(p.key);
        }
    }
    QSet<QString> given;
    for (const RunSpecView::Param &p : RunSpecView(spec).flattened()) {
        given.insert(p.key);
    }
    m_tree->clear();
    QHash<QString, QTreeWidgetItem *> sections;
    const QFont italic = [this] {
        QFont f = m_tree->font();
        f.setItalic(true);
        return f;
    }();
    for (const RunSpecView::Param &p : RunSpecView(m_resolved).flattened()) {
        const qsizetype dot = p.key.indexOf(QLatin1Char('.'));
        QTreeWidgetItem *parent = nullptr;
        QString key = p.key;
        if (dot > 0) {
            const QString section = p.key.left(dot);
            parent = sections.value(section);
            if (!parent) {
                parent = new QTreeWidgetItem(m_tree, QStringList{section});
                sections.insert(section, parent);
            }
            key = p.key.mid(dot + 1);
        }
        const bool isDefault = !given.contains(p.key);
        const QString from = !isDefault                   ? tr("spec")
                             : fromRecipe.contains(p.key) ? tr("recipe %1").arg(recipe->name)
                                                          : tr("default");
        auto *item = new QTreeWidgetItem(QStringList{key, RunSpecView::valueText(p.value), from});
        item->setData(0, Qt::UserRole, p.key);
        if (isDefault) {
            for (int c = 0; c < 3; ++c) {
                item->setFont(c, italic);
                item->setForeground(c, m_tree->palette().color(QPalette::Disabled, QPalette::Text));
            }
        }
        if (parent) {
            parent->addChild(item);
        } else {
            m_tree->addTopLevelItem(item);
        }
    }
    m_tree->expandAll();
}

} // namespace trainyard
