#include "desktopapp.h"

#include <QApplication>
#include <QMessageBox>

namespace trainyard {

// Placeholder until the desktop window lands (issue 4): says so plainly.
int runDesktopApp(int &argc, char **argv, const QString &experimentFile)
{
    QApplication app(argc, argv);
    Q_UNUSED(experimentFile);
    QMessageBox::information(nullptr, QStringLiteral("Trainyard"),
                             QStringLiteral("The desktop window is not built yet. Use `trainyard run FILE.json`."));
    return 0;
}

} // namespace trainyard
