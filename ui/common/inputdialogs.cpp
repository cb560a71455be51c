#include "ui/common/inputdialogs.h"

#include <QGuiApplication>
#include <QInputDialog>
#include <QLabel>
#include <QLayout>

#include <algorithm>

namespace trainyard {

namespace inputdialogs {

namespace {

bool run(QInputDialog *dialog, bool *ok)
{
    // QInputDialog's layout sizes the dialog to its contents (SetMinAndMaxSize),
    // whatever its minimum width: its label is given the width instead.
    if (auto *label = dialog->findChild<QLabel *>()) {
        const QMargins margins = dialog->layout() ? dialog->layout()->contentsMargins() : QMargins();
        label->setMinimumWidth(dialog->minimumWidth() - margins.left() - margins.right());
    }
    const bool accepted = dialog->exec() == QDialog::Accepted;
    if (ok) {
        *ok = accepted;
    }
    return accepted;
}

} // namespace

int titleWidth(const QWidget *window, const QString &title)
{
    // What the window manager shows: Qt adds the display name (QPlatformWindow::formatWindowTitle).
    QString shown = title;
    const QString app = QGuiApplication::applicationDisplayName();
    if (!app.isEmpty() && !title.endsWith(app)) {
        shown += QStringLiteral(" — ") + app;
    }
    // Title bars use a bold font, often larger; their buttons take about as
    // much again as a short title.
    QFont font = window->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.1);
    return QFontMetrics(font).horizontalAdvance(shown) + 160;
}

void fitTitle(QDialog *dialog, const QString &title)
{
    dialog->setWindowTitle(title);
    dialog->setMinimumWidth(std::max(dialog->minimumWidth(), titleWidth(dialog, title)));
}

QString getText(QWidget *parent, const QString &title, const QString &label, const QString &text, bool *ok)
{
    QInputDialog dialog(parent);
    fitTitle(&dialog, title);
    dialog.setLabelText(label);
    dialog.setTextValue(text);
    return run(&dialog, ok) ? dialog.textValue() : QString();
}

int getInt(QWidget *parent, const QString &title, const QString &label, int value, int min, int max, bool *ok)
{
    QInputDialog dialog(parent);
    fitTitle(&dialog, title);
    dialog.setLabelText(label);
    dialog.setIntRange(min, max);
    dialog.setIntValue(value);
    return run(&dialog, ok) ? dialog.intValue() : value;
}

QString getItem(QWidget *parent, const QString &title, const QString &label, const QStringList &items, bool editable,
                bool *ok, const QString &current)
{
    QInputDialog dialog(parent);
    fitTitle(&dialog, title);
    dialog.setLabelText(label);
    dialog.setComboBoxItems(items);
    dialog.setComboBoxEditable(editable);
    if (!current.isEmpty()) {
        dialog.setTextValue(current);
    }
    return run(&dialog, ok) ? dialog.textValue() : QString();
}

} // namespace inputdialogs

} // namespace trainyard
