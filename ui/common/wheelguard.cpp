#include "ui/common/wheelguard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace trainyard {

namespace {

class WheelFilter : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *widget = qobject_cast<QWidget *>(watched);
        if (event->type() == QEvent::Wheel && widget && !widget->hasFocus()) {
            // Not delivered to the editor; ignored, so Qt hands the wheel on
            // to the parents (the scroll area around the form).
            event->ignore();
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

void guardWheel(QWidget *root)
{
    // One filter per root, found again by name (a class without Q_OBJECT
    // cannot be found by type: qobject_cast would match any QObject).
    const QString name = QStringLiteral("trainyard-wheel-guard");
    QObject *filter = root->findChild<QObject *>(name, Qt::FindDirectChildrenOnly);
    if (!filter) {
        filter = new WheelFilter(root);
        filter->setObjectName(name);
    }
    const auto guard = [filter](QWidget *editor) {
        editor->setFocusPolicy(Qt::StrongFocus); // not Qt::WheelFocus: the wheel alone gives no focus
        editor->installEventFilter(filter);
    };
    for (QAbstractSpinBox *spin : root->findChildren<QAbstractSpinBox *>()) {
        guard(spin);
    }
    for (QComboBox *combo : root->findChildren<QComboBox *>()) {
        guard(combo);
    }
}

} // namespace trainyard
