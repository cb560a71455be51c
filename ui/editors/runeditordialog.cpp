#include "editors/runeditordialog.h"

#include "common/wheelguard.h"
#include "experiment/experiment.h"
#include "experiment/experimentcheck.h"
#include "experiment/runspecview.h"
#include "experiment/speccheck.h"
#include "palette/presetstore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace trainyard {

namespace {

QString valueText(const QJsonValue &v)
{
    if (v.isDouble()) {
        return QString::number(v.toDouble(), 'g', 10);
    }
    if (v.isBool()) {
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    }
    return v.toString();
}

QString rangeText(const ParamInfo &p)
{
    if (!p.choices.isEmpty()) {
        QStringList c;
        for (const QJsonValue &v : p.choices) {
            c.append(valueText(v));
        }
        return c.join(QLatin1String(", "));
    }
    if (p.minimum.isUndefined() && p.maximum.isUndefined()) {
        return {};
    }
    return QStringLiteral("[%1, %2]")
        .arg(p.minimum.isUndefined() ? QStringLiteral("−∞") : valueText(p.minimum),
             p.maximum.isUndefined() ? QStringLiteral("∞") : valueText(p.maximum));
}

} // namespace

RunEditorDialog::RunEditorDialog(const ModelCatalogue &catalogue, const QJsonObject &spec, int repeat, QWidget *parent)
    : QDialog(parent)
    , m_catalogue(catalogue)
    , m_initial(spec)
    , m_result(spec)
    , m_name(new QLineEdit(this))
    , m_repeat(new QSpinBox(this))
    , m_dataKind(new QComboBox(this))
    , m_error(new QLabel(this))
    , m_recheck(new QTimer(this))
{
    // Typing re-checks once the user pauses, not at every key.
    m_recheck->setSingleShot(true);
    m_recheck->setInterval(250);
    connect(m_recheck, &QTimer::timeout, this, &RunEditorDialog::recheck);
    const RunSpecView view(spec);
    const QString type = view.modelType();
    setWindowTitle(tr("Run: %1").arg(type));
    setObjectName(QStringLiteral("runEditor"));

    auto *content = new QWidget;
    auto *contentLayout = new QVBoxLayout(content);

    auto *general = new QGroupBox(tr("Run"), content);
    auto *generalForm = new QFormLayout(general);
    m_name->setText(view.effectiveName());
    m_name->setObjectName(QStringLiteral("name"));
    m_repeat->setRange(1, 100);
    m_repeat->setValue(qMax(1, repeat));
    m_repeat->setToolTip(tr("Runs of this spec, with seeds seed, seed+1, …; drawn as a mean with a band"));
    generalForm->addRow(tr("Name"), m_name);
    generalForm->addRow(tr("Repeat"), m_repeat);
    contentLayout->addWidget(general);

    const CatalogueModel *model = catalogue.model(type);
    auto *modelBox = new QGroupBox(tr("Model: %1").arg(type), content);
    auto *modelForm = new QFormLayout(modelBox);
    if (model) {
        if (!model->description.isEmpty()) {
            auto *description = new QLabel(model->description, modelBox);
            description->setWordWrap(true);
            modelForm->addRow(description);
        }
        buildSection(QStringLiteral("model"), model->params, view.model(), modelForm);
    } else {
        modelForm->addRow(new QLabel(tr("The worker does not know the model type \"%1\".").arg(type), modelBox));
    }
    contentLayout->addWidget(modelBox);

    auto *dataBox = new QGroupBox(tr("Data"), content);
    m_dataForm = new QFormLayout(dataBox);
    const QString task = model ? model->task : QString();
    for (const DataKindInfo &d : catalogue.dataKindsForTask(task)) {
        m_dataKind->addItem(d.kind);
    }
    m_dataForm->addRow(tr("Kind"), m_dataKind);
    const QString kind = view.dataKind();
    if (!kind.isEmpty() && m_dataKind->findText(kind) < 0) {
        m_dataKind->addItem(kind);
    }
    m_dataKind->setCurrentText(kind);
    rebuildData(m_dataKind->currentText());
    connect(m_dataKind, &QComboBox::currentTextChanged, this, &RunEditorDialog::rebuildData);
    contentLayout->addWidget(dataBox);

    for (const QString &section : catalogue.sectionNames()) {
        const QList<ParamInfo> params = catalogue.section(section);
        if (params.isEmpty()) {
            continue;
        }
        QString title = section;
        title[0] = title[0].toUpper();
        auto *box = new QGroupBox(title, content);
        auto *form = new QFormLayout(box);
        buildSection(section, params, view.section(section), form);
        contentLayout->addWidget(box);
    }
    contentLayout->addStretch(1);

    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(content);

    m_error->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_error->setWordWrap(true);
    m_error->setVisible(false);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_accept = buttons->button(QDialogButtonBox::Ok);
    m_accept->setText(tr("Queue"));
    auto *presetButton = buttons->addButton(tr("Save as preset…"), QDialogButtonBox::ActionRole);
    connect(presetButton, &QPushButton::clicked, this, &RunEditorDialog::savePreset);
    connect(buttons, &QDialogButtonBox::accepted, this, &RunEditorDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &RunEditorDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    resize(460, 640);
    guardWheel(this);
    watch(m_name);
    watch(m_repeat);
    watch(m_dataKind);
    recheck();
}

void RunEditorDialog::watch(QWidget *editor)
{
    const auto later = [this] { m_recheck->start(); };
    if (auto *line = qobject_cast<QLineEdit *>(editor)) {
        connect(line, &QLineEdit::textChanged, this, later);
    } else if (auto *spin = qobject_cast<QSpinBox *>(editor)) {
        connect(spin, &QSpinBox::valueChanged, this, later);
    } else if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        connect(combo, &QComboBox::currentIndexChanged, this, later);
    } else if (auto *check = qobject_cast<QCheckBox *>(editor)) {
        connect(check, &QCheckBox::toggled, this, later);
    }
}

void RunEditorDialog::setTakenNames(const QStringList &names)
{
    m_takenNames = names;
    recheck();
}

void RunEditorDialog::setWorkerProgram(const QString &program)
{
    delete m_dataCheck;
    m_dataCheck = nullptr;
    m_dataVerdicts.clear();
    if (!program.isEmpty()) {
        m_dataCheck = new SpecCheck(program, this);
        connect(m_dataCheck, &SpecCheck::finished, this, [this](const QString &complaint) {
            m_dataVerdicts.insert(ExperimentCheck::dataKey(m_dataCheck->spec()), complaint);
            recheck();
        });
    }
    recheck();
}

bool RunEditorDialog::canAccept() const
{
    return m_accept->isEnabled();
}

QString RunEditorDialog::problem() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

QString RunEditorDialog::dataComplaint()
{
    if (!m_dataCheck) {
        return {};
    }
    const QByteArray key = ExperimentCheck::dataKey(m_result);
    const auto verdict = m_dataVerdicts.constFind(key);
    if (verdict != m_dataVerdicts.constEnd()) {
        return verdict.value();
    }
    const bool asked = m_dataCheck->isRunning() && ExperimentCheck::dataKey(m_dataCheck->spec()) == key;
    if (!asked) {
        m_dataCheck->start(m_result);
    }
    return {};
}

void RunEditorDialog::recheck()
{
    m_recheck->stop();
    QString error;
    if (validate(&error)) {
        error = dataComplaint();
    }
    showProblem(error);
}

void RunEditorDialog::showProblem(const QString &problem)
{
    m_error->setText(problem);
    m_error->setVisible(!problem.isEmpty());
    m_accept->setEnabled(problem.isEmpty());
}

void RunEditorDialog::setRepeatEditable(bool on)
{
    m_repeat->setEnabled(on);
}

int RunEditorDialog::repeat() const
{
    return m_repeat->value();
}

void RunEditorDialog::buildSection(const QString &section, const QList<ParamInfo> &params, const QJsonObject &values,
                                   QFormLayout *form)
{
    for (const ParamInfo &p : params) {
        const QString key = section + QLatin1Char('.') + p.name;
        const QJsonValue value = values.contains(p.name) ? values.value(p.name) : p.defaultValue;
        QWidget *editor = createEditor(key, p, value);
        QString label = p.name;
        const QString range = rangeText(p);
        QString tip = p.help;
        if (!range.isEmpty()) {
            tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Allowed: %1").arg(range);
        }
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Default: %1").arg(valueText(p.defaultValue));
        editor->setToolTip(tip);
        form->addRow(label, editor);
        m_fields.append({key, Field{section, p}});
    }
}

QWidget *RunEditorDialog::createEditor(const QString &key, const ParamInfo &p, const QJsonValue &value)
{
    QWidget *editor = nullptr;
    if (!p.choices.isEmpty()) {
        auto *combo = new QComboBox(this);
        for (const QJsonValue &c : p.choices) {
            combo->addItem(valueText(c), c.toVariant());
        }
        combo->setCurrentText(valueText(value));
        editor = combo;
    } else if (p.type == QLatin1String("bool")) {
        auto *check = new QCheckBox(this);
        check->setChecked(value.toBool());
        editor = check;
    } else if (p.type == QLatin1String("int")) {
        auto *spin = new QSpinBox(this);
        // Ranges come from the worker as JSON numbers and may exceed int
        // (max_steps allows 1e12): clamp instead of converting, which gives 0.
        constexpr double intMin = std::numeric_limits<int>::min();
        constexpr double intMax = std::numeric_limits<int>::max();
        const int lo = p.minimum.isUndefined() ? 0 : static_cast<int>(std::clamp(p.minimum.toDouble(), intMin, intMax));
        const int hi = p.maximum.isUndefined() ? std::numeric_limits<int>::max()
                                               : static_cast<int>(std::clamp(p.maximum.toDouble(), intMin, intMax));
        // A null default (e.g. train.max_steps) is "unset": one below the minimum.
        const bool nullable = p.defaultValue.isNull() && lo > std::numeric_limits<int>::min();
        spin->setRange(nullable ? lo - 1 : lo, hi);
        if (nullable) {
            spin->setSpecialValueText(tr("none"));
        }
        spin->setValue(value.isNull() && nullable ? lo - 1 : value.toInt());
        spin->setProperty("nullable", nullable);
        editor = spin;
    } else if (p.type == QLatin1String("float")) {
        auto *line = new QLineEdit(value.isNull() ? QString() : valueText(value), this);
        // A null default (e.g. train.max_seconds) is "unset": an empty field.
        if (p.defaultValue.isNull()) {
            line->setPlaceholderText(tr("no limit"));
        }
        auto *validator = new QDoubleValidator(line);
        validator->setNotation(QDoubleValidator::ScientificNotation);
        validator->setLocale(QLocale::c());
        line->setValidator(validator);
        editor = line;
    } else if (p.type == QLatin1String("path")) {
        auto *box = new QWidget(this);
        auto *layout = new QHBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        auto *line = new QLineEdit(value.toString(), box);
        auto *browse = new QToolButton(box);
        browse->setText(QStringLiteral("…"));
        // Data paths are folders (train.txt…, IDX files); a model path is a
        // TorchScript file.
        const bool isFile = key.startsWith(QLatin1String("model."));
        browse->setToolTip(isFile ? tr("Choose a file") : tr("Choose a folder"));
        connect(browse, &QToolButton::clicked, this, [this, line, isFile] {
            const QString chosen =
                isFile ? QFileDialog::getOpenFileName(this, tr("TorchScript module"), line->text(),
                                                      tr("TorchScript modules (*.pt *.pth *.zip);;All files (*)"))
                       : QFileDialog::getExistingDirectory(this, tr("Data folder"), line->text());
            if (!chosen.isEmpty()) {
                line->setText(chosen);
            }
        });
        layout->addWidget(line, 1);
        layout->addWidget(browse);
        box->setFocusProxy(line);
        editor = box;
        m_editors.insert(key + QLatin1String("#line"), line);
    } else {
        editor = new QLineEdit(value.toString(), this);
    }
    editor->setObjectName(key);
    m_editors.insert(key, editor);
    watch(editor);
    if (QWidget *line = m_editors.value(key + QLatin1String("#line"))) {
        watch(line);
    }
    return editor;
}

bool RunEditorDialog::readEditor(const QString &key, const ParamInfo &p, QJsonValue *out, QString *error) const
{
    QWidget *editor = m_editors.value(key);
    if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        *out = QJsonValue::fromVariant(combo->currentData());
        return true;
    }
    if (auto *check = qobject_cast<QCheckBox *>(editor)) {
        *out = check->isChecked();
        return true;
    }
    if (auto *spin = qobject_cast<QSpinBox *>(editor)) {
        if (spin->property("nullable").toBool() && spin->value() == spin->minimum()) {
            *out = QJsonValue(QJsonValue::Null);
        } else {
            *out = spin->value();
        }
        return true;
    }
    if (p.type == QLatin1String("path")) {
        *out = qobject_cast<QLineEdit *>(m_editors.value(key + QLatin1String("#line")))->text().trimmed();
        return true;
    }
    auto *line = qobject_cast<QLineEdit *>(editor);
    if (p.type == QLatin1String("float")) {
        if (p.defaultValue.isNull() && line->text().trimmed().isEmpty()) {
            *out = QJsonValue(QJsonValue::Null);
            return true;
        }
        bool ok = false;
        const double v = QLocale::c().toDouble(line->text().trimmed(), &ok);
        // The catalogue's own rule (and wording), as the experiment check uses it.
        if (!ok || !p.accepts(v)) {
            *error = tr("%1: expected %2, got \"%3\"").arg(key, p.expectation(), line->text());
            return false;
        }
        *out = v;
        return true;
    }
    *out = line->text();
    return true;
}

bool RunEditorDialog::validate(QString *error)
{
    QJsonObject spec = m_initial;
    const QString name = m_name->text().trimmed();
    if (name.isEmpty()) {
        *error = tr("name: expected a non-empty run name");
        return false;
    }
    if (m_takenNames.contains(name)) {
        *error = tr("name: \"%1\" is already used by another run").arg(name);
        return false;
    }
    spec.insert(QLatin1String("name"), name);
    // Every object-valued key of a spec: model, data and the sections.
    QHash<QString, QJsonObject> sections;
    const RunSpecView initial(m_initial);
    for (const QString &section : ModelCatalogue::specKeys()) {
        if (section != QLatin1String("name")) {
            sections.insert(section, initial.section(section));
        }
    }
    // The data section is rebuilt from the chosen kind: keys of another kind would be unknown to the worker.
    QJsonObject data{{QLatin1String("kind"), m_dataKind->currentText()}};
    if (initial.dataKind() == m_dataKind->currentText()) {
        data = sections.value(QStringLiteral("data"));
    }
    sections.insert(QStringLiteral("data"), data);
    for (const auto &[key, field] : std::as_const(m_fields)) {
        if (!m_editors.contains(key)) {
            continue;
        }
        QJsonValue value;
        if (!readEditor(key, field.param, &value, error)) {
            return false;
        }
        sections[field.section].insert(field.param.name, value);
    }
    for (auto it = sections.constBegin(); it != sections.constEnd(); ++it) {
        if (!it.value().isEmpty()) {
            spec.insert(it.key(), it.value());
        }
    }
    // What the fields cannot show: keys the spec brought along that this
    // worker does not know (a preset from another version), a data kind of
    // the wrong task. The same check as an experiment file gets.
    const QStringList problems = validateRunSpec(spec, QString(), false, &m_catalogue);
    if (!problems.isEmpty()) {
        *error = problems.constFirst();
        return false;
    }
    m_result = spec;
    error->clear();
    return true;
}

void RunEditorDialog::accept()
{
    QString error;
    if (!validate(&error)) {
        showProblem(error);
        return;
    }
    // Enter pressed before the data check answered: wait for it (it only opens files).
    error = dataComplaint();
    if (error.isEmpty() && m_dataCheck && m_dataCheck->isRunning()) {
        m_dataCheck->waitForFinished(30000);
        error = dataComplaint();
    }
    if (!error.isEmpty()) {
        showProblem(error);
        return;
    }
    QDialog::accept();
}

void RunEditorDialog::setAcceptText(const QString &text)
{
    m_accept->setText(text);
}

void RunEditorDialog::rebuildData(const QString &kind)
{
    // Drop the previous kind's rows (all but the "Kind" row).
    while (m_dataForm->rowCount() > 1) {
        m_dataForm->removeRow(1);
    }
    m_fields.removeIf([this](const std::pair<QString, Field> &f) {
        if (f.second.section == QLatin1String("data")) {
            m_editors.remove(f.first);
            m_editors.remove(f.first + QLatin1String("#line"));
            return true;
        }
        return false;
    });
    const DataKindInfo *info = m_catalogue.dataKind(kind);
    if (!info) {
        return;
    }
    const RunSpecView initial(m_initial);
    const QJsonObject values = initial.dataKind() == kind ? initial.data() : QJsonObject();
    buildSection(QStringLiteral("data"), info->params, values, m_dataForm);
    guardWheel(this);
    m_recheck->start();
}

void RunEditorDialog::savePreset()
{
    QString error;
    if (!validate(&error)) {
        showProblem(error);
        return;
    }
    if (!m_presets) {
        return;
    }
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save preset"), tr("Preset name"), QLineEdit::Normal,
                                               RunSpecView(m_result).name(), &ok);
    if (!ok || name.trimmed().isEmpty()) {
        return;
    }
    if (!m_presets->save(Preset{name.trimmed(), m_result, repeat()}, &error)) {
        QMessageBox::warning(this, tr("Save preset"), error);
    }
}

} // namespace trainyard
