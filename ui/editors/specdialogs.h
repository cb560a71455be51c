#pragma once

#include <QString>

#include <functional>

class QJsonObject;
class QWidget;

namespace trainyard {

class ModelCatalogue;
class ExperimentDocument;
class PresetStore;

/// Opens the editor a run spec needs, set up for the edit at hand: the
/// program editor for a program run, else the run editor (the model
/// catalogue, the presets, the worker that checks its data).
class SpecDialogs
{
public:
    /// `catalogue` and `presets` must outlive this.
    SpecDialogs(QWidget *parent, const ModelCatalogue &catalogue, PresetStore *presets);

    /// Edits `spec` and `repeat` (false when cancelled). No name another run
    /// of `document`'s board has may be taken; `editedRun`: the name of
    /// the run it edits (its name may stay); `asNewRun`: the edit of a run
    /// that has run, queued as a new run (under a new name, proposed).
    bool edit(QJsonObject *spec, int *repeat, bool repeatEditable, const ExperimentDocument *document,
              const QString &workerProgram, const QString &editedRun = QString(), bool asNewRun = false) const;

    /// Called with the editor's spec when the user picks "Sweep…" in the
    /// editor of a new run: the sweep editor. True when the sweep was added
    /// (the drop then queues nothing); false (cancelled) opens the run editor
    /// again as the user left it.
    using SweepHandler = std::function<bool(const QJsonObject &base)>;
    /// What the editors check specs against (empty until the worker answered).
    const ModelCatalogue &catalogue() const { return m_catalogue; }
    void setSweepHandler(SweepHandler handler) { m_sweepHandler = std::move(handler); }

private:
    QWidget *m_parent;
    const ModelCatalogue &m_catalogue;
    PresetStore *m_presets;
    SweepHandler m_sweepHandler;
};

} // namespace trainyard
