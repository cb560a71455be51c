#pragma once

#include "orchestration/experiment/experiment.h"
#include "orchestration/remote/remotehostcheck.h"

#include <QDialog>
#include <QStringList>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace trainyard {

class BoardController;

/// "Add host…": a machine reached over ssh (docs/remote.md) as the
/// experiment file would hold it (name, host, user, port, ssh_config,
/// runs_root, worker, python; checked by ExperimentHost::fromJson, the
/// file's own reader), "Test connection" (RemoteHostCheck on a thread of
/// its own: reached, the worker runs, runs_root writable, its GPUs), and a
/// lane per GPU (or its CPU) ticked in the list. Accepted, the board's
/// controller adds host and lanes as one undoable edit, saved with the file.
class AddHostDialog : public QDialog
{
    Q_OBJECT
public:
    /// `taken`: names already in the experiment.
    explicit AddHostDialog(const QStringList &taken, QWidget *parent = nullptr);
    ~AddHostDialog() override;

    /// Shows the dialog for the controller's board and adds what it chose.
    static void addTo(BoardController *controller, QWidget *parent);

    /// The host as entered; empty name when it does not pass the file's checks.
    ExperimentHost host(QStringList *problems = nullptr) const;
    /// The lanes' devices ticked ("ssh:NAME/cuda:N", "ssh:NAME/cpu").
    QStringList devices() const;

    void testConnection();
    bool isTesting() const { return m_testing; }
    QString statusText() const;
    QListWidget *deviceList() const { return m_devices; }
    QPushButton *addButton() const;

    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *hostEdit() const { return m_host; }
    QLineEdit *userEdit() const { return m_user; }
    QSpinBox *portEdit() const { return m_port; }
    QLineEdit *sshConfigEdit() const { return m_sshConfig; }
    QLineEdit *runsRootEdit() const { return m_runsRoot; }
    QLineEdit *workerEdit() const { return m_worker; }
    QLineEdit *pythonEdit() const { return m_python; }

private:
    void tested(const RemoteHostCheck::Result &result, const ExperimentHost &host);
    void updateState();

    QStringList m_taken;
    QLineEdit *m_name;
    QLineEdit *m_host;
    QLineEdit *m_user;
    QSpinBox *m_port;
    QLineEdit *m_sshConfig;
    QLineEdit *m_runsRoot;
    QLineEdit *m_worker;
    QLineEdit *m_python;
    QLabel *m_problems;
    QPushButton *m_test;
    QLabel *m_status;
    QListWidget *m_devices;
    QDialogButtonBox *m_buttons;
    bool m_testing = false;
    QString m_testedJson; // the host the list is about; an edit since asks for a new test
};

} // namespace trainyard
