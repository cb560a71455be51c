#pragma once

#include <QString>
#include <QStringList>

class QDialog;
class QWidget;

namespace trainyard {

// QInputDialog's one-line questions, in a window wide enough for its title.
// A window manager shows a title as "Add lane — Trainyard" and cuts it in
// the middle ("Add la…inyard") when the dialog is sized for its field
// alone; these make the dialog as wide as that title and the title bar's
// buttons need.
namespace inputdialogs {

// Sets `dialog`'s title and makes it at least as wide as the title needs
// (titleWidth).
void fitTitle(QDialog *dialog, const QString &title);
// The width a window needs to show `title` whole, as a window manager
// writes it (with the application's display name) beside its buttons.
int titleWidth(const QWidget *window, const QString &title);

// As QInputDialog::getText, getInt and getItem.
QString getText(QWidget *parent, const QString &title, const QString &label, const QString &text, bool *ok);
int getInt(QWidget *parent, const QString &title, const QString &label, int value, int min, int max, bool *ok);
// `current`: the text it starts with (empty: the first item).
QString getItem(QWidget *parent, const QString &title, const QString &label, const QStringList &items, bool editable,
                bool *ok, const QString &current = QString());

} // namespace inputdialogs

} // namespace trainyard
