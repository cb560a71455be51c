#include "ui/editors/addhostdialog.h"

#include "orchestration/devices/device.h"
#include "orchestration/document/experimentdocument.h"
#include "ui/board/boardcontroller.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace trainyard {

AddHostDialog::AddHostDialog(const QStringList &taken, QWidget *parent)
    : QDialog(parent)
    , m_taken(taken)
    , m_name(new QLineEdit(this))
    , m_host(new QLineEdit(this))
    , m_user(new QLineEdit(this))
    , m_port(new QSpinBox(this))
    , m_sshConfig(new QLineEdit(this))
    , m_runsRoot(new QLineEdit(this))
    , m_worker(new QLineEdit(this))
    , m_python(new QLineEdit(this))
    , m_problems(new QLabel(this))
    , m_test(new QPushButton(tr("&Test connection"), this))
    , m_status(new QLabel(this))
    , m_devices(new QListWidget(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Add host"));
    m_port->setRange(1, 65535);
    m_port->setValue(22);
    m_name->setPlaceholderText(tr("lab (its lanes: ssh:lab/cuda:0, …)"));
    m_host->setPlaceholderText(tr("gpu1.lab.example, an address or an ssh config alias"));
    m_user->setPlaceholderText(tr("ssh's default"));
    m_sshConfig->setPlaceholderText(tr("~/.ssh/config (optional, an absolute path)"));
    m_runsRoot->setPlaceholderText(tr("/scratch/me/trainyard/experiment (on the host)"));
    m_worker->setPlaceholderText(tr("/opt/trainyard/bin/trainyard-worker (on the host)"));
    m_python->setPlaceholderText(tr("for program runs (optional)"));
    auto *form = new QFormLayout;
    form->addRow(tr("&Name"), m_name);
    form->addRow(tr("&Host"), m_host);
    form->addRow(tr("&User"), m_user);
    form->addRow(tr("&Port"), m_port);
    form->addRow(tr("ssh &config"), m_sshConfig);
    form->addRow(tr("&Runs folder there"), m_runsRoot);
    form->addRow(tr("&Worker there"), m_worker);
    form->addRow(tr("P&ython there"), m_python);
    m_problems->setWordWrap(true);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Add host"));
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problems);
    layout->addWidget(m_test, 0, Qt::AlignLeft);
    layout->addWidget(m_status);
    layout->addWidget(new QLabel(tr("A lane for each ticked device:"), this));
    layout->addWidget(m_devices);
    layout->addWidget(m_buttons);
    for (QLineEdit *edit : {m_name, m_host, m_user, m_sshConfig, m_runsRoot, m_worker, m_python}) {
        connect(edit, &QLineEdit::textChanged, this, &AddHostDialog::updateState);
    }
    connect(m_port, &QSpinBox::valueChanged, this, &AddHostDialog::updateState);
    connect(m_devices, &QListWidget::itemChanged, this, &AddHostDialog::updateState);
    connect(m_test, &QPushButton::clicked, this, &AddHostDialog::testConnection);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateState();
}

AddHostDialog::~AddHostDialog() = default;

void AddHostDialog::addTo(BoardController *controller, QWidget *parent)
{
    const ExperimentDocument *document = controller->document();
    if (!document) {
        return;
    }
    QStringList taken;
    for (const ExperimentHost &h : document->hosts()) {
        taken << h.name;
    }
    AddHostDialog dialog(taken, parent);
    if (dialog.exec() == QDialog::Accepted && controller->document()) {
        controller->document()->addHost(dialog.host(), dialog.devices());
    }
}

ExperimentHost AddHostDialog::host(QStringList *problems) const
{
    QJsonObject o{{QStringLiteral("name"), m_name->text().trimmed()},
                  {QStringLiteral("host"), m_host->text().trimmed()},
                  {QStringLiteral("runs_root"), m_runsRoot->text().trimmed()},
                  {QStringLiteral("worker"), m_worker->text().trimmed()}};
    if (m_port->value() != 22) {
        o.insert(QStringLiteral("port"), m_port->value());
    }
    const QList<std::pair<QString, QLineEdit *>> optional{{QStringLiteral("user"), m_user},
                                                          {QStringLiteral("ssh_config"), m_sshConfig},
                                                          {QStringLiteral("python"), m_python}};
    for (const auto &[key, edit] : optional) {
        if (!edit->text().trimmed().isEmpty()) {
            o.insert(key, edit->text().trimmed());
        }
    }
    QStringList errors;
    ExperimentHost h = ExperimentHost::fromJson(o, QString(), errors);
    if (m_taken.contains(h.name)) {
        errors << tr("name: the experiment already has a host named %1").arg(h.name);
    }
    if (problems) {
        *problems = errors;
    }
    if (!errors.isEmpty()) {
        h.name.clear();
    }
    return h;
}

QStringList AddHostDialog::devices() const
{
    QStringList out;
    for (int i = 0; i < m_devices->count(); ++i) {
        if (m_devices->item(i)->checkState() == Qt::Checked) {
            out << m_devices->item(i)->data(Qt::UserRole).toString();
        }
    }
    return out;
}

QPushButton *AddHostDialog::addButton() const
{
    return m_buttons->button(QDialogButtonBox::Ok);
}

QString AddHostDialog::statusText() const
{
    return m_status->text();
}

void AddHostDialog::testConnection()
{
    const ExperimentHost h = host();
    if (h.name.isEmpty() || m_testing) {
        return;
    }
    m_testing = true;
    m_status->setText(tr("Connecting to %1…").arg(h.ssh.host));
    m_devices->clear();
    updateState();
    // Blocking ssh on a thread of its own: the window stays responsive.
    auto result = std::make_shared<RemoteHostCheck::Result>();
    QThread *thread = QThread::create([result, config = RemoteHostConfig::forHost(h)] {
        RemoteHostCheck check(config);
        *result = check.check();
    });
    const QPointer<AddHostDialog> self(this);
    connect(thread, &QThread::finished, this, [self, thread, result, h] {
        thread->deleteLater();
        if (self) {
            self->tested(*result, h);
        }
    });
    thread->start();
}

void AddHostDialog::tested(const RemoteHostCheck::Result &result, const ExperimentHost &host)
{
    m_testing = false;
    m_testedJson = QString::fromUtf8(QJsonDocument(host.toJson()).toJson(QJsonDocument::Compact));
    m_devices->clear();
    if (!result.reachable) {
        m_status->setText(result.host);
        updateState();
        return;
    }
    QStringList lines{tr("Reached %1.").arg(host.ssh.host)};
    lines << (result.worker.isEmpty() ? tr("Worker: %1.").arg(result.workerVersion) : result.worker);
    if (!result.runsRoot.isEmpty()) {
        lines << result.runsRoot;
    }
    lines << (result.gpus < 0    ? tr("No nvidia-smi there: its CPU only.")
              : result.gpus == 1 ? tr("1 GPU (nvidia-smi).")
                                 : tr("%1 GPUs (nvidia-smi).").arg(result.gpus));
    m_status->setText(lines.join(QLatin1Char(' ')));
    for (const DeviceInfo &gpu : result.gpuList) {
        auto *item = new QListWidgetItem(
            // GiB, as nvidia-smi counts: an 80 GiB card is not "86 GB".
            tr("GPU %1 · %2 · %3 GiB")
                .arg(gpu.index)
                .arg(gpu.name)
                .arg(double(gpu.memoryTotal) / (1024.0 * 1024.0 * 1024.0), 0, 'f', 0),
            m_devices);
        item->setData(Qt::UserRole, gpu.id);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    auto *cpu = new QListWidgetItem(tr("CPU of %1").arg(host.name), m_devices);
    cpu->setData(Qt::UserRole, Device::remote(host.name, -1).toString());
    cpu->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    cpu->setCheckState(result.gpuList.isEmpty() ? Qt::Checked : Qt::Unchecked);
    updateState();
}

void AddHostDialog::updateState()
{
    QStringList problems;
    const ExperimentHost h = host(&problems);
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_problems->setVisible(!problems.isEmpty());
    const bool current = !h.name.isEmpty()
                         && m_testedJson == QString::fromUtf8(QJsonDocument(h.toJson()).toJson(QJsonDocument::Compact));
    if (!current && m_devices->count() > 0 && !m_testing) {
        m_devices->clear(); // an edit since the test: test again
        m_status->setText(tr("Test the connection to list the host's GPUs."));
    }
    m_test->setEnabled(!h.name.isEmpty() && !m_testing);
    addButton()->setEnabled(current && !m_testing && !devices().isEmpty());
}

} // namespace trainyard
