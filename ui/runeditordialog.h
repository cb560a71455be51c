#pragma once

#include "modelcatalog.h"

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
class QWidget;

namespace trainyard {

class PresetStore;

/// Edits one run spec before it is queued: the model's hyperparameters with
/// their defaults and ranges (from the worker's catalog), the data source,
/// the train/eval/checkpoint/report settings, and the repeat count.
class RunEditorDialog : public QDialog
{
    Q_OBJECT
public:
    RunEditorDialog(const ModelCatalog &catalog, const QJsonObject &spec, int repeat, QWidget *parent = nullptr);

    void setPresetStore(PresetStore *presets) { m_presets = presets; }
    /// Editing a queued run changes its spec only: the repeat count is fixed then.
    void setRepeatEditable(bool on);
    /// The accept button's text: "Queue" (a new run) by default, e.g. "Apply" when editing one.
    void setAcceptText(const QString &text);

    /// The edited spec; valid after accept() (or after a successful validate()).
    QJsonObject spec() const { return m_result; }
    int repeat() const;
    /// Builds the spec from the fields; on a bad field returns false and
    /// names the key in `error` ("train.lr: expected a number in [0, 10]").
    bool validate(QString *error);

    /// The editor widget of a key such as "model.dim" or "train.lr" (for tests).
    QWidget *editorFor(const QString &key) const { return m_editors.value(key); }

    void accept() override;

private:
    void buildSection(const QString &section, const QList<ParamInfo> &params, const QJsonObject &values,
                      QFormLayout *form);
    QWidget *createEditor(const QString &key, const ParamInfo &param, const QJsonValue &value);
    bool readEditor(const QString &key, const ParamInfo &param, QJsonValue *out, QString *error) const;
    void rebuildData(const QString &kind);
    void savePreset();

    ModelCatalog m_catalog;
    QJsonObject m_initial;
    QJsonObject m_result;
    PresetStore *m_presets = nullptr;
    QLineEdit *m_name;
    QSpinBox *m_repeat;
    QComboBox *m_dataKind;
    QFormLayout *m_dataForm = nullptr;
    QLabel *m_error;
    QPushButton *m_accept = nullptr;
    struct Field
    {
        QString section;
        ParamInfo param;
    };
    QHash<QString, QWidget *> m_editors;
    QList<std::pair<QString, Field>> m_fields; ///< key → field, in form order
};

} // namespace trainyard
