#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QDialog>
#include <QHash>
#include <QJsonObject>

class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QPushButton;
class QLineEdit;
class QSpinBox;
class QTimer;
class QWidget;

namespace trainyard {

class ParamFields;
class PresetStore;
class SpecCheck;

/// Edits one run spec before it is queued: the model's hyperparameters with
/// their defaults and ranges (from the worker's catalogue), the data source,
/// the train/eval/checkpoint/report settings, and the repeat count. It checks
/// as the user types: the accept button stays disabled, with the reason
/// under the form, while a field is out of range, the name is taken, or
/// (given the worker) the worker's own loaders reject the data.
class RunEditorDialog : public QDialog
{
    Q_OBJECT
public:
    RunEditorDialog(const ModelCatalogue &catalogue, const QJsonObject &spec, int repeat, QWidget *parent = nullptr);

    void setPresetStore(PresetStore *presets) { m_presets = presets; }
    /// Editing a queued run changes its spec only: the repeat count is fixed then.
    void setRepeatEditable(bool on);
    /// The accept button's text: "Queue" (a new run) by default, e.g. "Apply" when editing one.
    void setAcceptText(const QString &text);
    /// Names the run may not take (the board's other runs).
    void setTakenNames(const QStringList &names);
    /// Checks the data with `trainyard-worker --check` (empty: not checked).
    void setWorkerProgram(const QString &program);
    /// Whether the accept button is enabled, and the reason shown when not.
    bool canAccept() const;
    QString problem() const;

    /// The edited spec; valid after accept() (or after a successful validate()).
    QJsonObject spec() const { return m_result; }
    int repeat() const;
    /// Builds the spec from the fields; on a bad field returns false and
    /// names the key in `error` ("train.lr: expected a number in [0, 10]").
    bool validate(QString *error);

    /// The editor widget of a key such as "model.dim" or "train.lr" (for tests).
    QWidget *editorFor(const QString &key) const;

    void accept() override;

private:
    void rebuildData(const QString &kind);
    void savePreset();
    void recheck();
    void showProblem(const QString &problem);
    /// The data check's verdict on the last valid spec: its complaint, empty
    /// when none or not known yet (then it is started).
    QString dataComplaint();
    /// A KG model's recipe: the note under the model's description and the
    /// values of the fields the spec leaves to it (ParamFields::setLeftOut).
    void showRecipe();

    ModelCatalogue m_catalogue;
    QJsonObject m_initial;
    QJsonObject m_result;
    PresetStore *m_presets = nullptr;
    QLineEdit *m_name;
    QSpinBox *m_repeat;
    QComboBox *m_dataKind;
    QFormLayout *m_dataForm = nullptr;
    QLabel *m_error;
    QPushButton *m_accept = nullptr;
    QStringList m_takenNames;
    QTimer *m_recheck;
    SpecCheck *m_dataCheck = nullptr;
    QHash<QByteArray, QString> m_dataVerdicts;      ///< ExperimentCheck::dataKey → the worker's complaint
    QHash<QByteArray, QJsonObject> m_recipeChoices; ///< dataKey → what "auto" chooses there (SpecCheck::recipe)
    QLabel *m_recipeNote;
    ParamFields *m_fields; ///< the catalogue's parameters' fields
};

} // namespace trainyard
