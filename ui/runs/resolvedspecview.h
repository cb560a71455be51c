#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QJsonObject>
#include <QWidget>

class QLabel;
class QTreeWidget;

namespace trainyard {

/// A run's spec as its worker takes it (the run details' Spec page): every
/// key of spec.json and, for the keys it leaves out, the catalogue's
/// defaults (in italics, "default", or "recipe NAME" for a KG model's
/// recipe), in a tree by section; a line says
/// where the values come from; "Copy spec as JSON" copies the resolved spec.
class ResolvedSpecView : public QWidget
{
    Q_OBJECT
public:
    /// `catalogue` may be empty: then the spec shows what spec.json holds,
    /// and says so.
    explicit ResolvedSpecView(const ModelCatalogue &catalogue, QWidget *parent = nullptr);

    /// `chosenRecipe`: the recipe the worker chose for a model.recipe of
    /// "auto" (RunInfo::recipe), empty while it has not said.
    void setSpec(const QJsonObject &spec, const QString &chosenRecipe = QString());
    /// The spec with the catalogue's defaults filled in; empty before setSpec.
    QJsonObject resolved() const { return m_resolved; }

private:
    ModelCatalogue m_catalogue;
    QJsonObject m_resolved;
    QLabel *m_source;
    QTreeWidget *m_tree;
};

} // namespace trainyard
