#pragma once

#include <QLoggingCategory>

namespace trainyard {

/// The desktop app's window, board edits and open experiment ("trainyard.ui").
Q_DECLARE_LOGGING_CATEGORY(lcUi)
/// The live plots and their exports ("trainyard.plot").
Q_DECLARE_LOGGING_CATEGORY(lcPlot)

} // namespace trainyard
