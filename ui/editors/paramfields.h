#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <utility>

class QFormLayout;
class QWidget;

namespace trainyard {

/// The run editor's fields for the catalogue's parameters: one editor per
/// key ("model.dim", "train.lr") that fits its type (a spin box, a combo
/// box, a check box, a line, a path with Browse…), its help, range and
/// default as tooltip; read back as JSON values by the catalogue's own rule
/// (ParamInfo::accepts, with its wording); and the field whose value is
/// refused marked, a red frame and what it expects as its tooltip, so the
/// user sees which of thirty fields the message under the form means.
class ParamFields : public QObject
{
    Q_OBJECT
public:
    /// The editors are children of `owner`.
    explicit ParamFields(QWidget *owner);

    /// Adds a row to `form` for each of `params` of `section`, showing
    /// `values` (a key it lacks: the default).
    void addSection(const QString &section, const QList<ParamInfo> &params, const QJsonObject &values,
                    QFormLayout *form);
    /// Forgets the fields of `section` (the caller removes their rows).
    void removeSection(const QString &section);
    /// A field that is not a catalogue parameter ("name", "repeat"), so
    /// that it can be marked too.
    void addWidget(const QString &key, QWidget *editor) { m_editors.insert(key, editor); }

    /// Reads every field into its section's object of `sections`, but for
    /// the left-out keys the user has not edited. False at the first refused
    /// value, with "key: expected …" in `error`.
    bool read(QHash<QString, QJsonObject> *sections, QString *error) const;
    /// Keys ("model.loss") the spec leaves to something else (a KG model's
    /// recipe): read() writes them only once the user edits their field.
    void setLeftOut(const QSet<QString> &keys) { m_leftOut = keys; }
    /// Whether `key` is left out and its field untouched by the user.
    bool isLeftOut(const QString &key) const { return m_leftOut.contains(key) && !m_userEdited.contains(key); }
    /// Shows `value` in the field of `key` without counting as the user's
    /// edit (nor emitting edited()).
    void show(const QString &key, const QJsonValue &value);
    /// The editor of `key` ("model.dim"; "data.path#line": a path's line).
    QWidget *editor(const QString &key) const { return m_editors.value(key); }

    /// Marks the field a `problem` ("train.lr: expected …", as read() and
    /// validateRunSpec word them) is about, and unmarks the others; a
    /// problem about no field, or none, leaves every field unmarked.
    void mark(const QString &problem);
    /// The key of the field marked now; empty when none is.
    QString marked() const { return m_marked; }

Q_SIGNALS:
    /// A field changed (typing, a choice, a toggle).
    void edited();

private:
    struct Field
    {
        QString section;
        ParamInfo param;
    };
    QWidget *create(const QString &key, const ParamInfo &param, const QJsonValue &value);
    bool readOne(const QString &key, const ParamInfo &param, QJsonValue *out, QString *error) const;
    void watch(const QString &key, QWidget *editor);
    /// What a marked field shows: its own frame and tooltip, or red with `why`.
    void setMarked(const QString &key, const QString &why);

    QWidget *m_owner;
    QHash<QString, QWidget *> m_editors;
    QList<std::pair<QString, Field>> m_fields; ///< key → field, in form order
    QString m_marked;                          ///< the key marked now
    QString m_markedTip;                       ///< its own tooltip, back when unmarked
    QSet<QString> m_leftOut;                   ///< see setLeftOut
    QSet<QString> m_userEdited;                ///< keys whose field the user changed
};

} // namespace trainyard
