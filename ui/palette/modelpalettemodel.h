#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QAbstractItemModel>

namespace trainyard {

class PresetStore;

/// The model palette as a two-level tree: groups (one per task, then "Saved
/// presets") holding the models and presets the user can drag onto a lane.
/// Dragging yields runSpecMimeType(): a complete default run spec.
class ModelPaletteModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Roles {
        SpecRole = Qt::UserRole, ///< QJsonObject run spec of a leaf
        RepeatRole,              ///< int repeat count of a leaf
        ModelTypeRole,           ///< QString model type of a leaf
        IsPresetRole,            ///< bool
    };

    explicit ModelPaletteModel(PresetStore *presets, QObject *parent = nullptr);

    void setCatalogue(const ModelCatalogue &catalogue);
    const ModelCatalogue &catalogue() const { return m_catalogue; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override;

    /// Human name of a task ("kg" → "Knowledge graphs").
    static QString taskTitle(const QString &task);
    /// A run name from a configuration's title ("TransE · UMLS" → "transe-umls").
    static QString runName(const QString &title);

private:
    struct Leaf
    {
        QString title;
        QString tooltip;
        QJsonObject spec;
        int repeat = 1;
        bool preset = false;
    };
    struct Group
    {
        QString title;
        QList<Leaf> leaves;
    };
    void rebuild();
    QJsonObject completeSpec(const PublishedPreset &preset) const;

    PresetStore *m_presets;
    ModelCatalogue m_catalogue;
    QList<Group> m_groups;
};

} // namespace trainyard
