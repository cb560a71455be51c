#include "ui/editors/programeditordialog.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/experiment/pythonscript.h"
#include "orchestration/experiment/shelltext.h"
#include "orchestration/runspec/runspecview.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace trainyard {

namespace {

QTableWidget *makeTable(const QStringList &headers, QWidget *parent)
{
    auto *table = new QTableWidget(0, int(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->setVisible(false);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setEditTriggers(QAbstractItemView::AllEditTriggers);
    return table;
}

void appendRow(QTableWidget *table, const QStringList &cells)
{
    const int row = table->rowCount();
    table->insertRow(row);
    for (int c = 0; c < table->columnCount(); ++c) {
        table->setItem(row, c, new QTableWidgetItem(cells.value(c)));
    }
}

QString cell(const QTableWidget *table, int row, int column)
{
    const QTableWidgetItem *item = table->item(row, column);
    return item ? item->text() : QString();
}

// "+" and "−" under a table.
QWidget *rowButtons(QWidget *parent, const std::function<void()> &add, const std::function<void()> &remove,
                    const QString &what)
{
    auto *box = new QWidget(parent);
    auto *layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *plus = new QToolButton(box);
    plus->setText(QStringLiteral("+"));
    plus->setToolTip(QObject::tr("Add %1").arg(what));
    auto *minus = new QToolButton(box);
    minus->setText(QStringLiteral("−"));
    minus->setToolTip(QObject::tr("Remove the selected %1").arg(what));
    QObject::connect(plus, &QToolButton::clicked, box, add);
    QObject::connect(minus, &QToolButton::clicked, box, remove);
    layout->addWidget(plus);
    layout->addWidget(minus);
    layout->addStretch();
    return box;
}

} // namespace

ProgramEditorDialog::ProgramEditorDialog(const QJsonObject &spec, int repeat, QWidget *parent)
    : QDialog(parent)
    , m_initial(spec)
{
    setWindowTitle(tr("Program run"));
    const RunSpecView view(spec);
    auto *layout = new QVBoxLayout(this);
    // The lane is not known here: the text holds for a CPU lane as for a GPU one.
    auto *intro = new QLabel(tr("Any command, on this lane's device (on a GPU lane, CUDA_VISIBLE_DEVICES names its "
                                "GPUs; on a CPU lane it is empty), with its run folder in "
                                "TRAINYARD_RUN_DIR. A Python script reports its curves with <tt>import trainyard; "
                                "run = trainyard.init(); run.log(step, loss=…)</tt>."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_name = new QLineEdit(view.name(), this);
    m_name->setPlaceholderText(view.programStem());
    form->addRow(tr("&Name:"), m_name);

    m_argv = makeTable({tr("Program and arguments, one per row")}, this);
    for (const QString &arg : view.programArgv()) {
        appendRow(m_argv, {arg});
    }
    if (m_argv->rowCount() == 0) {
        appendRow(m_argv, {QStringLiteral("python3")});
    }
    form->addRow(tr("&Command:"), m_argv);
    form->addRow(QString(), rowButtons(
                                this, [this] { addRow(m_argv); }, [this] { removeRows(m_argv); }, tr("argument")));
    m_command = new QLabel(this);
    m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_command->setWordWrap(true);
    form->addRow(tr("Runs:"), m_command);

    auto *folderRow = new QHBoxLayout;
    m_cwd = new QLineEdit(view.programCwd(), this);
    m_cwd->setPlaceholderText(tr("the run's folder"));
    auto *browse = new QPushButton(tr("&Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder the program runs in"), m_cwd->text());
        if (!dir.isEmpty()) {
            m_cwd->setText(dir);
        }
    });
    folderRow->addWidget(m_cwd);
    folderRow->addWidget(browse);
    // A row of a layout has no buddy of its own: the label needs one, or it shows its "&".
    auto *folderLabel = new QLabel(tr("&Folder:"), this);
    folderLabel->setBuddy(m_cwd);
    form->addRow(folderLabel, folderRow);

    m_env = makeTable({tr("Variable"), tr("Value")}, this);
    for (const auto &[key, value] : view.programEnv()) {
        appendRow(m_env, {key, value});
    }
    m_env->setMaximumHeight(120);
    form->addRow(tr("&Environment:"), m_env);
    form->addRow(QString(), rowButtons(
                                this, [this] { addRow(m_env); }, [this] { removeRows(m_env); }, tr("variable")));

    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 1000000000);
    m_seed->setValue(int(view.seed().value_or(1)));
    m_seed->setToolTip(tr("TRAINYARD_SEED; repeats get seed, seed + 1, …"));
    form->addRow(tr("&Seed:"), m_seed);
    m_repeat = new QSpinBox(this);
    m_repeat->setRange(1, 1000);
    m_repeat->setValue(std::clamp(repeat, 1, 1000));
    form->addRow(tr("&Repeat:"), m_repeat);
    layout->addLayout(form);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e"));
    layout->addWidget(m_error);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_accept = buttons->button(QDialogButtonBox::Ok);
    m_accept->setText(tr("&Queue"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(m_name, &QLineEdit::textChanged, this, &ProgramEditorDialog::recheck);
    connect(m_cwd, &QLineEdit::textChanged, this, &ProgramEditorDialog::recheck);
    connect(m_argv, &QTableWidget::itemChanged, this, &ProgramEditorDialog::recheck);
    connect(m_env, &QTableWidget::itemChanged, this, &ProgramEditorDialog::recheck);
    connect(m_seed, &QSpinBox::valueChanged, this, &ProgramEditorDialog::recheck);
    connect(m_repeat, &QSpinBox::valueChanged, this, &ProgramEditorDialog::recheck);
    resize(620, 560);
    recheck();
}

void ProgramEditorDialog::setRepeatEditable(bool on)
{
    m_repeat->setEnabled(on);
}

void ProgramEditorDialog::setAcceptText(const QString &text)
{
    m_accept->setText(text);
}

void ProgramEditorDialog::setTakenNames(const QStringList &names)
{
    m_takenNames = names;
    recheck();
}

bool ProgramEditorDialog::canAccept() const
{
    return m_problem.isEmpty();
}

int ProgramEditorDialog::repeat() const
{
    return m_repeat->value();
}

void ProgramEditorDialog::addRow(QTableWidget *table)
{
    appendRow(table, {});
    table->setCurrentCell(table->rowCount() - 1, 0);
    table->editItem(table->item(table->rowCount() - 1, 0));
    recheck();
}

void ProgramEditorDialog::removeRows(QTableWidget *table)
{
    QList<int> rows;
    for (const QModelIndex &index : table->selectionModel()->selectedRows()) {
        rows << index.row();
    }
    if (rows.isEmpty() && table->currentRow() >= 0) {
        rows << table->currentRow();
    }
    std::sort(rows.begin(), rows.end(), std::greater<int>());
    for (int row : rows) {
        table->removeRow(row);
    }
    recheck();
}

QJsonObject ProgramEditorDialog::buildSpec() const
{
    // The initial spec's other keys (none today) stay as they were.
    QJsonObject spec = m_initial;
    spec.remove(QStringLiteral("name"));
    if (!m_name->text().trimmed().isEmpty()) {
        spec.insert(QStringLiteral("name"), m_name->text().trimmed());
    }
    QJsonArray argv;
    for (int row = 0; row < m_argv->rowCount(); ++row) {
        argv.append(cell(m_argv, row, 0));
    }
    // Trailing empty rows are rows added and not filled yet.
    while (!argv.isEmpty() && argv.last().toString().isEmpty()) {
        argv.removeLast();
    }
    // The program's keys this dialog does not edit (requires) stay as they were.
    QJsonObject program = m_initial.value(QStringLiteral("program")).toObject();
    for (const char *edited : {"argv", "cwd", "env"}) {
        program.remove(QLatin1String(edited));
    }
    program.insert(QStringLiteral("argv"), argv);
    QString cwd = m_cwd->text().trimmed();
    if (cwd.startsWith(QStringLiteral("~/"))) {
        cwd = QDir::homePath() + cwd.mid(1);
    }
    if (!cwd.isEmpty()) {
        program.insert(QStringLiteral("cwd"), cwd);
    }
    QJsonObject env;
    for (int row = 0; row < m_env->rowCount(); ++row) {
        const QString key = cell(m_env, row, 0).trimmed();
        if (!key.isEmpty()) {
            env.insert(key, cell(m_env, row, 1));
        }
    }
    if (!env.isEmpty()) {
        program.insert(QStringLiteral("env"), env);
    }
    spec.insert(QStringLiteral("program"), program);
    QJsonObject train = spec.value(QStringLiteral("train")).toObject();
    train.insert(QStringLiteral("seed"), m_seed->value());
    spec.insert(QStringLiteral("train"), train);
    return spec;
}

void ProgramEditorDialog::recheck()
{
    const QJsonObject spec = buildSpec();
    m_name->setPlaceholderText(RunSpecView(spec).programStem());
    m_command->setText(shellText(RunSpecView(spec).programArgv()));
    QStringList problems = validateRunSpec(spec, QString(), false);
    // A relative folder would mean the app's own working folder here and the
    // experiment file's after a save: the editor takes whole paths.
    const QString cwd = RunSpecView(spec).programCwd();
    if (!cwd.isEmpty() && QDir::isRelativePath(cwd)) {
        problems << tr("folder: a whole path such as /home/you/project (Browse…), or empty for the run's folder");
    }
    // A script that is not there would fail the run at once: said now.
    const QString missingScript = pythonscript::missing(programconfig::command(RunSpecView(spec)), cwd);
    if (!missingScript.isEmpty()) {
        problems << missingScript;
    }
    const QString name = RunSpecView(withDefaults(spec)).name();
    for (const QString &taken : repeatNames(name, m_repeat->value())) { // with repeats, each one's name
        if (m_takenNames.contains(taken)) {
            problems << tr("name: \"%1\" is already used by another run").arg(taken);
        }
    }
    m_problem = problems.join(QLatin1Char('\n'));
    m_error->setText(m_problem);
    m_accept->setEnabled(m_problem.isEmpty());
    if (m_problem.isEmpty()) {
        m_result = spec;
    }
}

} // namespace trainyard
