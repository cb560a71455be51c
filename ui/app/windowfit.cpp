#include "ui/app/windowfit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace trainyard {

QSize fittedWindowSize(const QWidget *window, QSize preferred)
{
    const QScreen *screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) {
        return preferred;
    }
    // The frame and title bar take some of the room.
    const QSize room = screen->availableSize() * 0.92;
    return preferred.boundedTo(room).expandedTo(window->minimumSizeHint().boundedTo(room));
}

} // namespace trainyard
