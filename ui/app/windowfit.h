#pragma once

#include <QSize>

class QWidget;

namespace trainyard {

/// The size a top-level window opens at: `preferred`, shrunk to fit the
/// room its screen leaves (the available geometry, in the window's own
/// scaled pixels: at QT_SCALE_FACTOR=2 a 1920x1080 screen is 960x540 of
/// them), with a margin for the window manager's frame.
QSize fittedWindowSize(const QWidget *window, QSize preferred);

} // namespace trainyard
