#include "ui/sweep/sweepeditordialog.h"

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/runspec/runspecview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace trainyard {

namespace {

// Keys a sweep cannot search (SweepSpec::fromJson says why); not offered.
bool offered(const QString &key, bool program)
{
    if (key == QLatin1String("name") || key == QLatin1String("repeat") || key == QLatin1String("model.type")
        || key == QLatin1String("data.kind") || key == QLatin1String("program")
        || key.startsWith(QLatin1String("program."))) {
        return false;
    }
    // A program run takes its parameters as config.<name> (and its seed).
    return !program || key.startsWith(QLatin1String("config.")) || key == QLatin1String("train.seed");
}

// One typed value: JSON where it reads as JSON (numbers, true, "text"), else the text itself.
QJsonValue parseValue(const QString &text)
{
    const QString t = text.trimmed();
    const QJsonDocument doc = QJsonDocument::fromJson(QStringLiteral("[%1]").arg(t).toUtf8());
    if (doc.isArray() && doc.array().size() == 1) {
        return doc.array().at(0);
    }
    return t;
}

// A bound as typed: a number where it is one, else the text (fromJson names what it expected).
QJsonValue parseNumber(const QString &text)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok) {
        return text.trimmed();
    }
    return v;
}

bool isIntegral(const QJsonValue &v)
{
    return v.isDouble() && std::floor(v.toDouble()) == v.toDouble() && std::abs(v.toDouble()) < 1e15;
}

} // namespace

SweepEditorDialog::SweepEditorDialog(const QJsonObject &base, const QStringList &lanes, const ModelCatalogue *catalogue,
                                     QWidget *parent)
    : QDialog(parent)
    , m_base(base)
    // A catalogue not read yet (the worker still answering) knows no keys:
    // the editor then checks what it can without one, not "unknown key".
    , m_catalogue(catalogue && !catalogue->isEmpty() ? catalogue : nullptr)
    , m_program(RunSpecView(base).isProgram())
    , m_grid(new QGridLayout)
    , m_name(new QLineEdit(this))
    , m_method(new QComboBox(this))
    , m_trials(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_objective(new QLineEdit(this))
    , m_objectiveMode(new QComboBox(this))
    , m_rule(new QComboBox(this))
    , m_resource(new QComboBox(this))
    , m_min(new QDoubleSpinBox(this))
    , m_max(new QDoubleSpinBox(this))
    , m_eta(new QDoubleSpinBox(this))
    , m_size(new QLabel(this))
    , m_error(new QLabel(this))
{
    setObjectName(QStringLiteral("sweepEditor"));
    setWindowTitle(tr("Sweep"));
    const RunSpecView view(base);
    // The sweep names and counts its trials: its base has neither a name nor a repeat.
    m_base.remove(QStringLiteral("repeat"));
    m_base.remove(QStringLiteral("name"));

    // The space: one row per key of the base.
    auto *spaceBox = new QGroupBox(tr("Search space"), this);
    auto *spaceLayout = new QVBoxLayout(spaceBox);
    auto *gridHost = new QWidget;
    auto *hostLayout = new QVBoxLayout(gridHost);
    hostLayout->addLayout(m_grid);
    hostLayout->addStretch(1); // rows at their height, not spread over the scroll area
    const QStringList headers{tr("Key"), tr("Mode"), tr("Values"), tr("Low"), tr("High"), tr("Step"), tr("Int")};
    for (int c = 0; c < headers.size(); ++c) {
        m_grid->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(headers.at(c).toHtmlEscaped())), 0, c);
    }
    for (const RunSpecView::Param &p : view.flattened()) {
        if (offered(p.key, m_program) && !p.value.isObject()) {
            addRow(p.key, p.value);
        }
    }
    addCatalogueRows();
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(gridHost);
    scroll->setWidgetResizable(true);
    scroll->setMinimumHeight(220);
    spaceLayout->addWidget(scroll);
    if (m_program) {
        auto *addBar = new QHBoxLayout;
        m_configName = new QLineEdit(this);
        m_configName->setObjectName(QStringLiteral("sweepConfigName"));
        m_configName->setPlaceholderText(tr("a name the script reads from run.config, e.g. depth"));
        auto *add = new QPushButton(tr("Add config key"), this);
        add->setObjectName(QStringLiteral("sweepAddConfig"));
        connect(add, &QPushButton::clicked, this, [this] {
            if (addConfigKey(m_configName->text())) {
                m_configName->clear();
            }
        });
        addBar->addWidget(new QLabel(QStringLiteral("config."), this));
        addBar->addWidget(m_configName, 1);
        addBar->addWidget(add);
        spaceLayout->addLayout(addBar);
    }

    // How to search, the objective, early stopping, the lanes.
    m_name->setObjectName(QStringLiteral("sweepName"));
    m_name->setText(view.name().isEmpty() ? QStringLiteral("sweep") : view.name() + QStringLiteral("-sweep"));
    m_method->setObjectName(QStringLiteral("sweepMethod"));
    m_method->addItem(tr("grid"), QStringLiteral("grid"));
    m_method->addItem(tr("random"), QStringLiteral("random"));
    m_trials->setObjectName(QStringLiteral("sweepTrials"));
    m_trials->setRange(0, 100000);
    m_trials->setSpecialValueText(tr("all of the grid"));
    m_seed->setObjectName(QStringLiteral("sweepSeed"));
    m_seed->setRange(0, 2147483647);
    m_seed->setValue(1);
    m_objective->setObjectName(QStringLiteral("sweepObjective"));
    m_objective->setText(m_program ? QString() : QStringLiteral("valid/mrr"));
    m_objective->setPlaceholderText(QStringLiteral("valid/mrr"));
    m_objectiveMode->setObjectName(QStringLiteral("sweepObjectiveMode"));
    m_objectiveMode->addItem(tr("max"), QStringLiteral("max"));
    m_objectiveMode->addItem(tr("min"), QStringLiteral("min"));
    m_rule->setObjectName(QStringLiteral("sweepStopping"));
    m_rule->addItem(tr("none"), QString());
    m_rule->addItem(tr("ASHA"), QStringLiteral("asha"));
    m_rule->addItem(tr("median"), QStringLiteral("median"));
    m_resource->setObjectName(QStringLiteral("sweepResource"));
    m_resource->addItem(tr("epoch"), QStringLiteral("epoch"));
    m_resource->addItem(tr("step"), QStringLiteral("step"));
    m_min->setObjectName(QStringLiteral("sweepMin"));
    m_max->setObjectName(QStringLiteral("sweepMax"));
    m_eta->setObjectName(QStringLiteral("sweepEta"));
    for (QDoubleSpinBox *box : {m_min, m_max}) {
        box->setRange(0, 1e9);
        box->setDecimals(0);
    }
    m_min->setValue(1);
    const QJsonValue epochs = m_base.value(QStringLiteral("train")).toObject().value(QStringLiteral("epochs"));
    m_max->setValue(epochs.isDouble() ? epochs.toDouble() : 100);
    m_eta->setRange(0, 100);
    m_eta->setDecimals(2);
    m_eta->setValue(3);

    auto *form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    auto *method = new QHBoxLayout;
    method->addWidget(m_method);
    method->addWidget(new QLabel(tr("trials"), this));
    method->addWidget(m_trials);
    method->addWidget(new QLabel(tr("seed"), this));
    method->addWidget(m_seed);
    form->addRow(tr("Method"), method);
    auto *objective = new QHBoxLayout;
    objective->addWidget(m_objective, 1);
    objective->addWidget(m_objectiveMode);
    form->addRow(tr("Objective"), objective);
    auto *stopping = new QHBoxLayout;
    stopping->addWidget(m_rule);
    stopping->addWidget(m_resource);
    stopping->addWidget(new QLabel(tr("min"), this));
    stopping->addWidget(m_min);
    stopping->addWidget(new QLabel(tr("max"), this));
    stopping->addWidget(m_max);
    stopping->addWidget(new QLabel(tr("η"), this));
    stopping->addWidget(m_eta);
    form->addRow(tr("Early stopping"), stopping);
    auto *laneBox = new QHBoxLayout;
    for (int i = 0; i < lanes.size(); ++i) {
        auto *check = new QCheckBox(lanes.at(i), this);
        check->setObjectName(QStringLiteral("sweepLane:%1").arg(i));
        check->setChecked(true);
        connect(check, &QCheckBox::toggled, this, &SweepEditorDialog::revalidate);
        laneBox->addWidget(check);
        m_lanes << check;
    }
    laneBox->addStretch(1);
    form->addRow(tr("Lanes"), laneBox);

    m_size->setObjectName(QStringLiteral("sweepGridSize"));
    m_error->setObjectName(QStringLiteral("sweepError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_accept = buttons->addButton(tr("Start sweep"), QDialogButtonBox::AcceptRole);
    m_accept->setObjectName(QStringLiteral("sweepAccept"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(spaceBox, 1);
    layout->addLayout(form);
    layout->addWidget(m_size);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(m_name, &QLineEdit::textChanged, this, &SweepEditorDialog::revalidate);
    connect(m_objective, &QLineEdit::textChanged, this, &SweepEditorDialog::revalidate);
    for (QComboBox *box : {m_method, m_objectiveMode, m_rule, m_resource}) {
        connect(box, &QComboBox::currentIndexChanged, this, &SweepEditorDialog::revalidate);
    }
    for (QSpinBox *box : {m_trials, m_seed}) {
        connect(box, &QSpinBox::valueChanged, this, &SweepEditorDialog::revalidate);
    }
    for (QDoubleSpinBox *box : {m_min, m_max, m_eta}) {
        connect(box, &QDoubleSpinBox::valueChanged, this, &SweepEditorDialog::revalidate);
    }
    resize(860, 640);
    revalidate();
}

void SweepEditorDialog::addCatalogueRows()
{
    const CatalogueModel *model =
        m_catalogue && !m_program ? m_catalogue->model(RunSpecView(m_base).modelType()) : nullptr;
    if (!model) {
        return;
    }
    // A new run's spec leaves what the model's recipes set to "auto" (the
    // worker picks them for the data): those keys, and the model's and
    // train's, are offered too, at the value the worker uses without a
    // recipe. Fixed leaves them out of the trials' specs, as they were.
    QSet<QString> recipeKeys;
    for (const CatalogueRecipe &recipe : model->recipes) {
        for (const RunSpecView::Param &p : RunSpecView(recipe.values).flattened()) {
            recipeKeys.insert(p.key);
        }
    }
    for (const RunSpecView::Param &p : RunSpecView(m_catalogue->resolve(m_base)).flattened()) {
        const bool wanted = recipeKeys.contains(p.key) || p.key.startsWith(QLatin1String("model."))
                            || p.key.startsWith(QLatin1String("train."));
        if (wanted && !m_rows.contains(p.key) && offered(p.key, false) && !p.value.isObject()) {
            addRow(p.key, p.value, recipeKeys.contains(p.key) ? tr("recipe") : tr("default"));
        }
    }
}

void SweepEditorDialog::addRow(const QString &key, const QJsonValue &value, const QString &source)
{
    const int r = m_grid->rowCount();
    Row row;
    row.mode = new QComboBox;
    row.mode->addItem(tr("fixed"), int(Mode::Fixed));
    row.mode->addItem(tr("values"), int(Mode::Values));
    row.mode->addItem(tr("range"), int(Mode::Range));
    row.mode->addItem(tr("log range"), int(Mode::LogRange));
    row.values = new QLineEdit(RunSpecView::valueText(value));
    row.values->setPlaceholderText(tr("comma-separated, e.g. 0.01, 0.001"));
    row.low = new QLineEdit;
    row.high = new QLineEdit;
    row.step = new QLineEdit(QStringLiteral("1"));
    row.integer = new QCheckBox;
    row.integer->setChecked(isIntegral(value));
    if (value.isDouble()) {
        row.low->setText(RunSpecView::valueText(value));
        row.high->setText(RunSpecView::valueText(value));
    }
    const QList<std::pair<QWidget *, QString>> named{
        {row.mode, QStringLiteral("sweepMode:")}, {row.values, QStringLiteral("sweepValues:")},
        {row.low, QStringLiteral("sweepLow:")},   {row.high, QStringLiteral("sweepHigh:")},
        {row.step, QStringLiteral("sweepStep:")}, {row.integer, QStringLiteral("sweepInt:")}};
    auto *label = new QLabel(source.isEmpty() ? key : QStringLiteral("%1 <i>(%2)</i>").arg(key, source));
    label->setObjectName(QStringLiteral("sweepKey:") + key);
    if (!source.isEmpty()) {
        label->setToolTip(tr("Not in the run's spec: the worker's %1 sets it (%2 shown). Fixed leaves it so.")
                              .arg(source, RunSpecView::valueText(value)));
    }
    m_grid->addWidget(label, r, 0);
    for (int c = 0; c < named.size(); ++c) {
        named.at(c).first->setObjectName(named.at(c).second + key);
        m_grid->addWidget(named.at(c).first, r, c + 1);
    }
    connect(row.mode, &QComboBox::currentIndexChanged, this, [this, key] {
        updateRow(m_rows.value(key));
        revalidate();
    });
    for (QLineEdit *edit : {row.values, row.low, row.high, row.step}) {
        connect(edit, &QLineEdit::textChanged, this, &SweepEditorDialog::revalidate);
    }
    connect(row.integer, &QCheckBox::toggled, this, &SweepEditorDialog::revalidate);
    m_rows.insert(key, row);
    m_keyOrder << key;
    updateRow(row);
}

bool SweepEditorDialog::addConfigKey(const QString &name)
{
    const QString key = QStringLiteral("config.") + name.trimmed();
    if (name.trimmed().isEmpty() || m_rows.contains(key)) {
        return false;
    }
    addRow(key, QJsonValue());
    m_rows.value(key).mode->setCurrentIndex(int(Mode::Values)); // a new key is there to be searched
    m_rows.value(key).values->clear();
    revalidate();
    return true;
}

void SweepEditorDialog::updateRow(const Row &row)
{
    const auto mode = Mode(row.mode->currentData().toInt());
    const bool ranged = mode == Mode::Range || mode == Mode::LogRange;
    row.values->setEnabled(mode == Mode::Values);
    row.low->setEnabled(ranged);
    row.high->setEnabled(ranged);
    row.step->setEnabled(mode == Mode::Range);
    row.integer->setEnabled(ranged);
}

QJsonObject SweepEditorDialog::json() const
{
    QJsonObject space;
    for (const QString &key : m_keyOrder) {
        const Row &row = m_rows[key];
        QJsonObject p;
        switch (Mode(row.mode->currentData().toInt())) {
        case Mode::Fixed:
            continue; // the base's value
        case Mode::Values: {
            QJsonArray values;
            for (const QString &part : row.values->text().split(QLatin1Char(','))) {
                if (!part.trimmed().isEmpty()) {
                    values.append(parseValue(part));
                }
            }
            p.insert(QStringLiteral("values"), values);
            break;
        }
        case Mode::Range:
            p.insert(QStringLiteral("range"), QJsonArray{parseNumber(row.low->text()), parseNumber(row.high->text())});
            p.insert(QStringLiteral("step"), parseNumber(row.step->text()));
            break;
        case Mode::LogRange:
            p.insert(QStringLiteral("log_uniform"),
                     QJsonArray{parseNumber(row.low->text()), parseNumber(row.high->text())});
            break;
        }
        if (row.integer->isEnabled() && row.integer->isChecked()) {
            p.insert(QStringLiteral("int"), true);
        }
        space.insert(key, p);
    }
    QJsonObject o{{QStringLiteral("name"), m_name->text().trimmed()},
                  {QStringLiteral("base"), m_base},
                  {QStringLiteral("space"), space},
                  {QStringLiteral("method"), m_method->currentData().toString()},
                  {QStringLiteral("seed"), m_seed->value()},
                  {QStringLiteral("objective"),
                   QJsonObject{{QStringLiteral("metric"), m_objective->text().trimmed()},
                               {QStringLiteral("mode"), m_objectiveMode->currentData().toString()}}}};
    if (m_trials->value() > 0 || m_method->currentData() == QLatin1String("random")) {
        o.insert(QStringLiteral("trials"), m_trials->value());
    }
    QJsonArray lanes;
    for (int i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes.at(i)->isChecked()) {
            lanes.append(i);
        }
    }
    o.insert(QStringLiteral("lanes"), lanes);
    const QString rule = m_rule->currentData().toString();
    if (!rule.isEmpty()) {
        QJsonObject stopping{{QStringLiteral("rule"), rule},
                             {QStringLiteral("resource"), m_resource->currentData().toString()},
                             {QStringLiteral("min"), m_min->value()},
                             {QStringLiteral("max"), m_max->value()}};
        if (rule == QLatin1String("asha")) {
            stopping.insert(QStringLiteral("eta"), m_eta->value());
        }
        o.insert(QStringLiteral("early_stopping"), stopping);
    }
    return o;
}

QString SweepEditorDialog::sizeText() const
{
    return m_size->text();
}

void SweepEditorDialog::revalidate()
{
    const QString rule = m_rule->currentData().toString();
    for (QWidget *w : std::initializer_list<QWidget *>{m_resource, m_min, m_max}) {
        w->setEnabled(!rule.isEmpty());
    }
    m_eta->setEnabled(rule == QLatin1String("asha"));
    m_seed->setEnabled(m_method->currentData() == QLatin1String("random"));
    // The experiment file's own rules, with its messages: one validation, not two.
    QStringList errors;
    const QJsonObject sweep = json();
    const std::optional<SweepSpec> spec =
        SweepSpec::fromJson(sweep, QStringLiteral("sweep"), int(m_lanes.size()), errors, m_catalogue);
    if (sweep.value(QStringLiteral("space")).toObject().isEmpty()) {
        // The form's first state: said in its own terms, not the file's.
        m_problem = tr("No key is swept yet: set a key's mode to values, range or log range.");
        m_spec = SweepSpec();
        m_size->setText(tr("Grid: —"));
    } else if (!spec || !errors.isEmpty()) {
        m_problem = errors.isEmpty() ? tr("The sweep is not valid.") : errors.first();
        m_spec = SweepSpec();
        m_size->setText(tr("Grid: —"));
    } else {
        m_problem.clear();
        m_spec = *spec;
        if (spec->method == QLatin1String("grid")) {
            qint64 grid = 1;
            for (const SweepParameter &p : spec->space) {
                grid *= std::max<qsizetype>(1, p.gridValues().size());
            }
            m_size->setText(spec->trialCount() < grid
                                ? tr("Grid: %1 configurations, the first %2 run").arg(grid).arg(spec->trialCount())
                                : tr("Grid: %1 configurations").arg(grid));
        } else {
            m_size->setText(tr("Random: %1 trials").arg(spec->trialCount()));
        }
    }
    m_error->setText(m_problem);
    m_error->setVisible(!m_problem.isEmpty());
    m_accept->setEnabled(m_problem.isEmpty());
}

void SweepEditorDialog::accept()
{
    revalidate();
    if (!canAccept()) {
        return;
    }
    QDialog::accept();
}

} // namespace trainyard
