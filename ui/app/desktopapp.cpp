#include "ui/app/desktopapp.h"

#include "ui/app/mainwindow.h"

#include <QApplication>
#include <QIcon>

// Q_INIT_RESOURCE must be used outside a namespace; the icons live in a
// static library, so the resource is registered by hand.
static void initUiResources()
{
    Q_INIT_RESOURCE(ui);
}

namespace trainyard {

void initDesktopApp()
{
    initUiResources();
    // The same name as the headless command, so both find the same run folders.
    QApplication::setApplicationName(QStringLiteral("trainyard"));
    QApplication::setApplicationDisplayName(QStringLiteral("Trainyard"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.trainyard.Trainyard"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/trainyard/icons/trainyard-256.png")));
}

int runDesktopApp(int &argc, char **argv, const QString &experimentFile)
{
    QApplication app(argc, argv);
    initDesktopApp();
    MainWindow window;
    const bool opened = experimentFile.isEmpty() ? window.openAtStart() : window.openFile(experimentFile);
    if (!opened && !experimentFile.isEmpty()) {
        // The user was told why; the demo beats an empty window.
        window.openDemo();
    }
    window.loadCatalogue();
    window.show();
    return app.exec();
}

} // namespace trainyard
