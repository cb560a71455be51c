#pragma once

#include "orchestration/experiment/sweepspec.h"

#include <QDialog>
#include <QHash>
#include <QJsonObject>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace trainyard {

class ModelCatalogue;

/// Builds a sweep from a base run spec (the one a dropped model or program
/// would run): per key of the spec a mode (fixed, values, range, log
/// range; `config.<name>` keys may be added for program runs), the method
/// and trial count, seed, objective, early stopping and the lanes. It shows
/// the grid's size as the user types and refuses a bad sweep with the
/// message of SweepSpec::fromJson (the experiment file's own validation).
class SweepEditorDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Mode {
        Fixed,
        Values,
        Range,
        LogRange
    };

    /// `lanes`: the board's lanes by index (their names, for the checkboxes).
    /// `catalogue`, when given, checks the keys, values and objective as
    /// `trainyard check` does (it must outlive the dialog).
    SweepEditorDialog(const QJsonObject &base, const QStringList &lanes, const ModelCatalogue *catalogue = nullptr,
                      QWidget *parent = nullptr);

    /// The keys offered, in form order: the base's values, flattened, then (with a
    /// catalogue) the keys its model's recipes set and the model's and train's keys it leaves out.
    QStringList keys() const { return m_keyOrder; }
    /// Adds a `config.<name>` key (program runs); false when the name is empty or there.
    bool addConfigKey(const QString &name);

    /// The sweep as the experiment file holds it, from the fields as they are.
    QJsonObject json() const;
    /// The validated sweep; valid when canAccept().
    SweepSpec spec() const { return m_spec; }
    bool canAccept() const { return m_problem.isEmpty(); }
    /// Why the sweep is refused (SweepSpec::fromJson's first message), empty when it is not.
    QString problem() const { return m_problem; }
    /// "Grid: 12 configurations" or "Random: 20 trials".
    QString sizeText() const;

    void accept() override;

private:
    struct Row
    {
        QComboBox *mode;
        QLineEdit *values;
        QLineEdit *low;
        QLineEdit *high;
        QLineEdit *step;
        QCheckBox *integer;
    };
    /// `source`: where the value comes from when the base leaves the key out ("recipe", "default").
    void addRow(const QString &key, const QJsonValue &value, const QString &source = QString());
    void addCatalogueRows();
    void updateRow(const Row &row);
    void revalidate();

    QJsonObject m_base;
    const ModelCatalogue *m_catalogue;
    bool m_program = false;
    QStringList m_keyOrder;
    QHash<QString, Row> m_rows;
    QGridLayout *m_grid;
    QLineEdit *m_name;
    QLineEdit *m_configName = nullptr;
    QComboBox *m_method;
    QSpinBox *m_trials;
    QSpinBox *m_seed;
    QLineEdit *m_objective;
    QComboBox *m_objectiveMode;
    QComboBox *m_rule;
    QComboBox *m_resource;
    QDoubleSpinBox *m_min;
    QDoubleSpinBox *m_max;
    QDoubleSpinBox *m_eta;
    QList<QCheckBox *> m_lanes;
    QLabel *m_size;
    QLabel *m_error;
    QPushButton *m_accept;
    SweepSpec m_spec;
    QString m_problem;
};

} // namespace trainyard
