#pragma once

#include <QLoggingCategory>

namespace trainyard {

// "trainyard.tensorboard": TensorBoard event files written and read.
Q_DECLARE_LOGGING_CATEGORY(lcTensorBoard)

} // namespace trainyard
