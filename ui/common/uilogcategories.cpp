#include "ui/common/uilogcategories.h"

namespace trainyard {

// Info and up by default: edits refused, experiments opened and closed, exports
// written. QT_LOGGING_RULES="trainyard.*.debug=true" shows the chatter too.
Q_LOGGING_CATEGORY(lcUi, "trainyard.ui", QtWarningMsg)
Q_LOGGING_CATEGORY(lcPlot, "trainyard.plot", QtWarningMsg)

} // namespace trainyard
