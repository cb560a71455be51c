#pragma once

class QWidget;

namespace trainyard {

/// Spin boxes and combo boxes under `root` take the mouse wheel only once
/// they have focus (a click or Tab gives it): scrolling a form over them
/// scrolls the form instead of changing a value the user never meant to
/// touch. Call again after adding editors; installing twice is harmless.
void guardWheel(QWidget *root);

} // namespace trainyard
