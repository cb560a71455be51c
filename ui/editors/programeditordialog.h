#pragma once

#include <QDialog>
#include <QJsonObject>
#include <QStringList>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace trainyard {

/// Edits a program run (docs/python.md): its command as a table of
/// arguments (the first is the program, "python3"), the folder it runs in,
/// its own environment variables, its seed (TRAINYARD_SEED, counted up by
/// repeats) and the repeat count. The accept button stays disabled, with the
/// reason under the form, while the spec would be refused (an empty program,
/// a variable Trainyard sets itself, a name already taken) or would fail at
/// once (a Python script that is not in its folder). The command as a shell
/// would read it shows under the table.
class ProgramEditorDialog : public QDialog
{
    Q_OBJECT
public:
    ProgramEditorDialog(const QJsonObject &spec, int repeat, QWidget *parent = nullptr);

    void setRepeatEditable(bool on);
    void setAcceptText(const QString &text);
    void setTakenNames(const QStringList &names);

    bool canAccept() const;
    QString problem() const { return m_problem; }
    /// The edited spec (valid while canAccept()).
    QJsonObject spec() const { return m_result; }
    int repeat() const;

    /// For tests: the argument table and the folder field.
    QTableWidget *argumentTable() const { return m_argv; }
    QLineEdit *folderEdit() const { return m_cwd; }

private:
    void addRow(QTableWidget *table);
    void removeRows(QTableWidget *table);
    void recheck();
    QJsonObject buildSpec() const;

    QJsonObject m_initial;
    QJsonObject m_result;
    QStringList m_takenNames;
    QString m_problem;
    QLineEdit *m_name;
    QTableWidget *m_argv;
    QLabel *m_command;
    QLineEdit *m_cwd;
    QTableWidget *m_env;
    QSpinBox *m_seed;
    QSpinBox *m_repeat;
    QLabel *m_error;
    QPushButton *m_accept = nullptr;
};

} // namespace trainyard
