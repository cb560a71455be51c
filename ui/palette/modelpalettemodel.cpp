#include "ui/palette/modelpalettemodel.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/common/mimetypes.h"
#include "ui/palette/presetstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QRegularExpression>

namespace trainyard {

namespace {
// Internal ids: 0 marks a group row, otherwise group index + 1.
constexpr quintptr groupMarker = 0;
} // namespace

ModelPaletteModel::ModelPaletteModel(PresetStore *presets, QObject *parent)
    : QAbstractItemModel(parent)
    , m_presets(presets)
{
    if (m_presets) {
        connect(m_presets, &PresetStore::changed, this, &ModelPaletteModel::rebuild);
    }
    rebuild();
}

void ModelPaletteModel::setCatalogue(const ModelCatalogue &catalogue)
{
    m_catalogue = catalogue;
    rebuild();
}

QString ModelPaletteModel::taskTitle(const QString &task)
{
    if (task == QLatin1String("kg")) {
        return tr("Knowledge graphs");
    }
    if (task == QLatin1String("image")) {
        return tr("Images");
    }
    return task.isEmpty() ? tr("Other") : task;
}

QString ModelPaletteModel::runName(const QString &title)
{
    // "TransE · UMLS" → "transe-umls": a run name is letters, digits and ._+@-.
    static const QRegularExpression other(QStringLiteral("[^a-z0-9._+@]+"));
    QString name = title.toLower().replace(other, QStringLiteral("-"));
    while (name.startsWith(QLatin1Char('-')) || name.startsWith(QLatin1Char('.'))) {
        name.remove(0, 1);
    }
    while (name.endsWith(QLatin1Char('-'))) {
        name.chop(1);
    }
    name = name.left(100);
    return isSafeRunName(name) ? name : QStringLiteral("run");
}

// The model type's full default spec with the preset's keys laid over it,
// section by section, so the editor opens on every key. A preset is a
// complete configuration: no recipe fills in for it.
QJsonObject ModelPaletteModel::completeSpec(const PublishedPreset &preset) const
{
    QJsonObject spec = m_catalogue.defaultSpec(RunSpecView(preset.spec).modelType(), runName(preset.name));
    if (const CatalogueModel *model = m_catalogue.model(RunSpecView(preset.spec).modelType());
        model && !model->recipes.isEmpty()) {
        QJsonObject modelSection = spec.value(QLatin1String("model")).toObject();
        modelSection.insert(QLatin1String("recipe"), QStringLiteral("none"));
        spec.insert(QLatin1String("model"), modelSection);
    }
    for (auto it = preset.spec.begin(); it != preset.spec.end(); ++it) {
        // A data section names another kind than the model's default: it replaces.
        if (!it.value().isObject() || it.key() == QLatin1String("data")) {
            spec.insert(it.key(), it.value());
            continue;
        }
        QJsonObject section = spec.value(it.key()).toObject();
        const QJsonObject overrides = it.value().toObject();
        for (auto o = overrides.begin(); o != overrides.end(); ++o) {
            section.insert(o.key(), o.value());
        }
        spec.insert(it.key(), section);
    }
    return spec;
}

void ModelPaletteModel::rebuild()
{
    beginResetModel();
    m_groups.clear();
    for (const QString &task : m_catalogue.tasks()) {
        Group g{taskTitle(task), {}};
        for (const CatalogueModel &m : m_catalogue.models()) {
            if (m.task != task) {
                continue;
            }
            Leaf leaf;
            leaf.title = m.type;
            leaf.tooltip = m.description;
            leaf.spec = m_catalogue.newRunSpec(m.type, m.type);
            g.leaves.append(leaf);
        }
        m_groups.append(g);
    }
    // Any command, a Python script reporting through the trainyard module
    // above all; its editor opens on the drop (ProgramEditorDialog).
    Leaf program;
    program.title = tr("Program…");
    program.tooltip = tr("Your own training script or any command, on this lane's GPU, reporting its curves "
                         "with the trainyard Python module (edit its command line after the drop; a .py file "
                         "dropped from a file manager becomes one too)");
    program.spec = QJsonObject{
        {QStringLiteral("program"),
         QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("train.py")}}}}};
    m_groups.append(Group{tr("Programs"), {program}});
    if (!m_catalogue.presets().isEmpty()) {
        Group g{tr("Published configurations"), {}};
        for (const PublishedPreset &p : m_catalogue.presets()) {
            Leaf leaf;
            leaf.title = p.name;
            leaf.tooltip = p.source + tr("\nIts dataset does not come with Trainyard: the editor asks for its folder.");
            leaf.spec = completeSpec(p);
            g.leaves.append(leaf);
        }
        m_groups.append(g);
    }
    if (m_presets && !m_presets->presets().isEmpty()) {
        Group g{tr("Saved presets"), {}};
        for (const Preset &p : m_presets->presets()) {
            Leaf leaf;
            leaf.title = p.name;
            leaf.tooltip = tr("%1, repeated %n time(s)", nullptr, p.repeat).arg(RunSpecView(p.spec).kindLabel());
            leaf.spec = p.spec;
            leaf.repeat = p.repeat;
            leaf.preset = true;
            g.leaves.append(leaf);
        }
        m_groups.append(g);
    }
    endResetModel();
}

QModelIndex ModelPaletteModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, groupMarker);
    }
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex ModelPaletteModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == groupMarker) {
        return {};
    }
    return createIndex(int(child.internalId() - 1), 0, groupMarker);
}

int ModelPaletteModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid()) {
        return int(m_groups.size());
    }
    if (parent.column() != 0 || parent.internalId() != groupMarker) {
        return 0;
    }
    return int(m_groups.at(parent.row()).leaves.size());
}

int ModelPaletteModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QVariant ModelPaletteModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid()) {
        return {};
    }
    if (index.internalId() == groupMarker) {
        const Group &g = m_groups.at(index.row());
        if (role == Qt::DisplayRole) {
            return g.title;
        }
        return {};
    }
    const Leaf &leaf = m_groups.at(int(index.internalId() - 1)).leaves.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return leaf.title;
    case Qt::ToolTipRole:
        return leaf.tooltip;
    case SpecRole:
        return leaf.spec;
    case RepeatRole:
        return leaf.repeat;
    case ModelTypeRole:
        return RunSpecView(leaf.spec).modelType();
    case IsPresetRole:
        return leaf.preset;
    default:
        return {};
    }
}

Qt::ItemFlags ModelPaletteModel::flags(const QModelIndex &index) const
{
    if (!index.isValid()) {
        return Qt::NoItemFlags;
    }
    if (index.internalId() == groupMarker) {
        return Qt::ItemIsEnabled;
    }
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled;
}

QStringList ModelPaletteModel::mimeTypes() const
{
    return {runSpecMimeType()};
}

QMimeData *ModelPaletteModel::mimeData(const QModelIndexList &indexes) const
{
    for (const QModelIndex &index : indexes) {
        if (!index.isValid() || index.internalId() == groupMarker) {
            continue;
        }
        const QJsonObject payload{{QLatin1String("spec"), index.data(SpecRole).toJsonObject()},
                                  {QLatin1String("repeat"), index.data(RepeatRole).toInt()},
                                  {QLatin1String("preset"), index.data(IsPresetRole).toBool()}};
        auto *mime = new QMimeData;
        mime->setData(runSpecMimeType(), QJsonDocument(payload).toJson(QJsonDocument::Compact));
        mime->setText(index.data().toString());
        return mime;
    }
    return nullptr;
}

Qt::DropActions ModelPaletteModel::supportedDragActions() const
{
    return Qt::CopyAction;
}

} // namespace trainyard
