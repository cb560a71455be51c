#include "metrics/tensorboard/tensorboardlogging.h"

namespace trainyard {

Q_LOGGING_CATEGORY(lcTensorBoard, "trainyard.tensorboard", QtWarningMsg)

} // namespace trainyard
