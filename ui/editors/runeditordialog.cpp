#include "ui/editors/runeditordialog.h"

#include "orchestration/check/experimentcheck.h"
#include "orchestration/check/speccheck.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/common/inputdialogs.h"
#include "ui/common/wheelguard.h"
#include "ui/editors/paramfields.h"
#include "ui/palette/presetstore.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace trainyard {

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
    , m_recipeNote(new QLabel(this))
    , m_fields(new ParamFields(this))
{
    // Typing re-checks once the user pauses, not at every key.
    m_recheck->setSingleShot(true);
    m_recheck->setInterval(250);
    connect(m_recheck, &QTimer::timeout, this, &RunEditorDialog::recheck);
    const RunSpecView view(spec);
    const QString type = view.modelType();
    // The fields show the values the worker would take: what the spec says,
    // else the model's defaults (or its recipe's, showRecipe()).
    const RunSpecView shown(catalogue.resolve(spec));
    setWindowTitle(tr("Run: %1").arg(type));
    setObjectName(QStringLiteral("runEditor"));

    auto *content = new QWidget;
    auto *contentLayout = new QVBoxLayout(content);

    auto *general = new QGroupBox(tr("Run"), content);
    auto *generalForm = new QFormLayout(general);
    m_name->setText(view.effectiveName());
    m_name->setObjectName(QStringLiteral("name"));
    m_fields->addWidget(QStringLiteral("name"), m_name);
    m_repeat->setRange(1, 100);
    m_repeat->setValue(qMax(1, repeat));
    m_repeat->setToolTip(tr("Runs of this spec, with seeds seed, seed+1, …; drawn as a mean with a band"));
    generalForm->addRow(tr("&Name"), m_name);
    generalForm->addRow(tr("&Repeat"), m_repeat);
    contentLayout->addWidget(general);

    const CatalogueModel *model = catalogue.model(type);
    auto *modelBox = new QGroupBox(tr("Model: %1").arg(type), content);
    // The paragraphs above the form, not rows of it: QFormLayout gave a
    // wrapped row less height than its lines need, so they overlapped.
    auto *modelLayout = new QVBoxLayout(modelBox);
    auto *modelForm = new QFormLayout;
    if (model) {
        if (!model->description.isEmpty()) {
            auto *description = new QLabel(model->description, modelBox);
            description->setWordWrap(true);
            modelLayout->addWidget(description);
        }
        m_recipeNote->setObjectName(QStringLiteral("recipeNote"));
        m_recipeNote->setWordWrap(true);
        m_recipeNote->setVisible(!model->recipes.isEmpty());
        modelLayout->addWidget(m_recipeNote);
        m_fields->addSection(QStringLiteral("model"), model->params, shown.model(), modelForm);
        // The keys a recipe sets are the recipe's until the user edits them.
        QSet<QString> leftOut;
        for (const CatalogueRecipe &recipe : model->recipes) {
            for (const RunSpecView::Param &p : RunSpecView(recipe.values).flattened()) {
                leftOut.insert(p.key);
            }
        }
        for (const RunSpecView::Param &p : view.flattened()) {
            leftOut.remove(p.key);
        }
        m_fields->setLeftOut(leftOut);
    } else {
        modelForm->addRow(new QLabel(tr("The worker does not know the model type \"%1\".").arg(type), modelBox));
    }
    modelLayout->addLayout(modelForm);
    contentLayout->addWidget(modelBox);

    auto *dataBox = new QGroupBox(tr("Data"), content);
    m_dataForm = new QFormLayout(dataBox);
    const QString task = model ? model->task : QString();
    for (const DataKindInfo &d : catalogue.dataKindsForTask(task)) {
        m_dataKind->addItem(d.kind);
    }
    m_dataForm->addRow(tr("&Kind"), m_dataKind);
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
        m_fields->addSection(section, params, shown.section(section), form);
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
    m_accept->setText(tr("&Queue"));
    auto *presetButton = buttons->addButton(tr("Save as &preset…"), QDialogButtonBox::ActionRole);
    connect(presetButton, &QPushButton::clicked, this, &RunEditorDialog::savePreset);
    connect(buttons, &QDialogButtonBox::accepted, this, &RunEditorDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &RunEditorDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    resize(460, 640);
    guardWheel(this);
    const auto later = [this] { m_recheck->start(); };
    connect(m_fields, &ParamFields::edited, this, later);
    connect(m_name, &QLineEdit::textChanged, this, later);
    connect(m_repeat, &QSpinBox::valueChanged, this, later); // its repeats' names may be taken
    connect(m_dataKind, &QComboBox::currentIndexChanged, this, later);
    recheck();
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
            if (!m_dataCheck->recipe().isEmpty()) {
                m_recipeChoices.insert(ExperimentCheck::dataKey(m_dataCheck->spec()), m_dataCheck->recipe());
            }
            recheck();
        });
    }
    recheck();
}

QWidget *RunEditorDialog::editorFor(const QString &key) const
{
    return m_fields->editor(key);
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
    showRecipe();
    showProblem(error);
}

void RunEditorDialog::showRecipe()
{
    const QString type = RunSpecView(m_initial).modelType();
    const CatalogueModel *model = m_catalogue.model(type);
    const auto *combo = qobject_cast<QComboBox *>(m_fields->editor(QStringLiteral("model.recipe")));
    if (!model || model->recipes.isEmpty() || !combo) {
        return;
    }
    const QString named = combo->currentText();
    const QJsonObject choice = m_recipeChoices.value(ExperimentCheck::dataKey(m_result));
    const QString chosen = choice.value(QLatin1String("recipe")).toString();
    const CatalogueRecipe *recipe = model->recipe(named == QLatin1String("auto") ? chosen : named);
    if (named == QLatin1String("none")) {
        m_recipeNote->setText(tr("No recipe: the keys this spec leaves out take the model's defaults."));
    } else if (named != QLatin1String("auto")) {
        m_recipeNote->setText(recipe ? tr("Recipe \"%1\": %2.").arg(recipe->name, recipe->fits) : QString());
    } else if (recipe) {
        m_recipeNote->setText(tr("Recipe auto: \"%1\" for this graph (%2): %3. The fields it sets show its "
                                 "values; a value you change is yours.")
                                  .arg(recipe->name, choice.value(QLatin1String("reason")).toString(), recipe->fits));
    } else {
        m_recipeNote->setText(m_dataCheck ? tr("Recipe auto: chosen from the graph's size and density when the run "
                                               "starts (checking the data…).")
                                          : tr("Recipe auto: chosen from the graph's size and density when the run "
                                               "starts."));
    }
    // Untouched fields the recipe sets show its values (or the defaults).
    const QJsonObject probe{
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), type}, {QStringLiteral("recipe"), named}}}};
    for (const RunSpecView::Param &p : RunSpecView(m_catalogue.resolve(probe, chosen)).flattened()) {
        if (m_fields->isLeftOut(p.key)) {
            m_fields->show(p.key, p.value);
        }
    }
}

void RunEditorDialog::showProblem(const QString &problem)
{
    m_fields->mark(problem); // the field it is about, red, with what it expects
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

bool RunEditorDialog::validate(QString *error)
{
    QJsonObject spec = m_initial;
    const QString name = m_name->text().trimmed();
    if (name.isEmpty()) {
        *error = tr("name: expected a non-empty run name");
        return false;
    }
    for (const QString &taken : repeatNames(name, repeat())) { // with repeats, each one's name
        if (m_takenNames.contains(taken)) {
            *error = tr("name: \"%1\" is already used by another run").arg(taken);
            return false;
        }
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
    if (!m_fields->read(&sections, error)) {
        return false;
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
    // A published configuration names its dataset but not where it is: the
    // data does not come with Trainyard, and an empty folder is no data.
    const RunSpecView view(spec);
    if (const DataKindInfo *kind = m_catalogue.dataKind(view.dataKind())) {
        for (const ParamInfo &p : kind->params) {
            if (p.type == QLatin1String("path") && view.data().value(p.name).toString().trimmed().isEmpty()) {
                *error = tr("data.%1: no folder given, and the data does not come with Trainyard: download the "
                            "dataset and choose its folder (%2)")
                             .arg(p.name, kind->description.isEmpty() ? p.help : kind->description);
                return false;
            }
        }
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
    m_fields->removeSection(QStringLiteral("data"));
    while (m_dataForm->rowCount() > 1) {
        m_dataForm->removeRow(1);
    }
    const DataKindInfo *info = m_catalogue.dataKind(kind);
    if (!info) {
        return;
    }
    const RunSpecView initial(m_initial);
    const QJsonObject values = initial.dataKind() == kind ? initial.data() : QJsonObject();
    m_fields->addSection(QStringLiteral("data"), info->params, values, m_dataForm);
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
    const QString name =
        inputdialogs::getText(this, tr("Save preset"), tr("Preset name"), RunSpecView(m_result).name(), &ok);
    if (!ok || name.trimmed().isEmpty()) {
        return;
    }
    if (!m_presets->save(Preset{name.trimmed(), m_result, repeat()}, &error)) {
        QMessageBox::warning(this, tr("Save preset"), error);
    }
}

} // namespace trainyard
