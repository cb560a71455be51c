#include "ui/editors/paramfields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

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

ParamFields::ParamFields(QWidget *owner)
    : QObject(owner)
    , m_owner(owner)
{
}

void ParamFields::addSection(const QString &section, const QList<ParamInfo> &params, const QJsonObject &values,
                             QFormLayout *form)
{
    for (const ParamInfo &p : params) {
        const QString key = section + QLatin1Char('.') + p.name;
        const QJsonValue value = values.contains(p.name) ? values.value(p.name) : p.defaultValue;
        QWidget *editor = create(key, p, value);
        const QString range = rangeText(p);
        QString tip = p.help;
        if (!range.isEmpty()) {
            tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Allowed: %1").arg(range);
        }
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Default: %1").arg(valueText(p.defaultValue));
        editor->setToolTip(tip);
        form->addRow(p.name, editor);
        m_fields.append({key, Field{section, p}});
    }
}

void ParamFields::removeSection(const QString &section)
{
    if (m_marked.startsWith(section + QLatin1Char('.'))) {
        m_marked.clear(); // its editor goes with the rows
    }
    m_fields.removeIf([this, &section](const std::pair<QString, Field> &f) {
        if (f.second.section == section) {
            m_editors.remove(f.first);
            m_editors.remove(f.first + QLatin1String("#line"));
            return true;
        }
        return false;
    });
}

void ParamFields::watch(const QString &key, QWidget *editor)
{
    const auto edited = [this, key] {
        m_userEdited.insert(key);
        Q_EMIT this->edited();
    };
    if (auto *line = qobject_cast<QLineEdit *>(editor)) {
        connect(line, &QLineEdit::textChanged, this, edited);
    } else if (auto *spin = qobject_cast<QSpinBox *>(editor)) {
        connect(spin, &QSpinBox::valueChanged, this, edited);
    } else if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        connect(combo, &QComboBox::currentIndexChanged, this, edited);
    } else if (auto *check = qobject_cast<QCheckBox *>(editor)) {
        connect(check, &QCheckBox::toggled, this, edited);
    }
}

QWidget *ParamFields::create(const QString &key, const ParamInfo &p, const QJsonValue &value)
{
    QWidget *editor = nullptr;
    if (!p.choices.isEmpty()) {
        auto *combo = new QComboBox(m_owner);
        for (const QJsonValue &c : p.choices) {
            combo->addItem(valueText(c), c.toVariant());
        }
        combo->setCurrentText(valueText(value));
        editor = combo;
    } else if (p.type == QLatin1String("bool")) {
        auto *check = new QCheckBox(m_owner);
        check->setChecked(value.toBool());
        editor = check;
    } else if (p.type == QLatin1String("int")) {
        auto *spin = new QSpinBox(m_owner);
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
        auto *line = new QLineEdit(value.isNull() ? QString() : valueText(value), m_owner);
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
        auto *box = new QWidget(m_owner);
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
                isFile ? QFileDialog::getOpenFileName(m_owner, tr("TorchScript module"), line->text(),
                                                      tr("TorchScript modules (*.pt *.pth *.zip);;All files (*)"))
                       : QFileDialog::getExistingDirectory(m_owner, tr("Data folder"), line->text());
            if (!chosen.isEmpty()) {
                line->setText(chosen);
            }
        });
        layout->addWidget(line, 1);
        layout->addWidget(browse);
        box->setFocusProxy(line);
        editor = box;
        m_editors.insert(key + QLatin1String("#line"), line);
        watch(key, line);
    } else {
        editor = new QLineEdit(value.toString(), m_owner);
    }
    editor->setObjectName(key);
    m_editors.insert(key, editor);
    watch(key, editor);
    return editor;
}

bool ParamFields::read(QHash<QString, QJsonObject> *sections, QString *error) const
{
    for (const auto &[key, field] : m_fields) {
        if (!m_editors.contains(key)) {
            continue;
        }
        if (isLeftOut(key)) {
            continue;
        }
        QJsonValue value;
        if (!readOne(key, field.param, &value, error)) {
            return false;
        }
        (*sections)[field.section].insert(field.param.name, value);
    }
    return true;
}

void ParamFields::show(const QString &key, const QJsonValue &value)
{
    QWidget *editor = m_editors.value(key);
    if (m_editors.contains(key + QLatin1String("#line"))) {
        editor = m_editors.value(key + QLatin1String("#line"));
    }
    if (!editor) {
        return;
    }
    const QSignalBlocker quiet(editor);
    if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        combo->setCurrentText(valueText(value));
    } else if (auto *check = qobject_cast<QCheckBox *>(editor)) {
        check->setChecked(value.toBool());
    } else if (auto *spin = qobject_cast<QSpinBox *>(editor)) {
        spin->setValue(value.isNull() && spin->property("nullable").toBool() ? spin->minimum() : value.toInt());
    } else if (auto *line = qobject_cast<QLineEdit *>(editor)) {
        line->setText(value.isNull() ? QString() : valueText(value));
    }
}

bool ParamFields::readOne(const QString &key, const ParamInfo &p, QJsonValue *out, QString *error) const
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

void ParamFields::mark(const QString &problem)
{
    // "train.lr: expected a number in [0, 10], got "50"": the key, then why.
    const qsizetype colon = problem.indexOf(QLatin1String(": "));
    const QString key = colon > 0 ? problem.left(colon) : QString();
    const QString field = m_editors.contains(key + QLatin1String("#line")) ? key + QLatin1String("#line") : key;
    if (field != m_marked) {
        setMarked(m_marked, QString());
        m_marked.clear();
    }
    if (!m_editors.contains(field)) {
        return;
    }
    if (m_marked.isEmpty()) {
        m_markedTip = m_editors.value(field)->toolTip();
    }
    m_marked = field;
    setMarked(field, problem.mid(colon + 2));
}

void ParamFields::setMarked(const QString &key, const QString &why)
{
    QWidget *editor = m_editors.value(key);
    if (!editor) {
        return;
    }
    const bool on = !why.isEmpty();
    editor->setProperty("invalid", on);
    // A frame of the editor's own type only: a spin box's inner line keeps its look.
    editor->setStyleSheet(on ? QStringLiteral("%1 { border: 2px solid #b3261e; border-radius: 3px; }")
                                   .arg(QString::fromLatin1(editor->metaObject()->className()))
                             : QString());
    editor->setToolTip(on ? why + (m_markedTip.isEmpty() ? QString() : QStringLiteral("\n\n") + m_markedTip)
                          : m_markedTip);
}

} // namespace trainyard
