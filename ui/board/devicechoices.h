#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard {

struct DeviceInfo;

/// What the device questions of "Add lane…" and a lane's "Device…" offer:
/// the CPU, each GPU, and where the machine has GPUs, pools of them
/// (docs/experiment-format.md, "GPU pools"). The combo stays editable, so
/// any device the file takes can be typed ("cuda:0,2,5", "ssh:lab/cuda:*").
namespace devicechoices {

/// "cpu", "cuda:0" … "cuda:N", then "All GPUs (cuda:*)" and, with four GPUs
/// or more, each half ("GPUs 0–1 (cuda:0-1)", "GPUs 2–3 (cuda:2-3)").
QStringList items(const QList<DeviceInfo> &devices);
/// The device an item or a typed text names: "cuda:*" for "All GPUs
/// (cuda:*)", the text trimmed otherwise.
QString device(const QString &choice);
/// The item that names `device` among `items`, else `device` itself.
QString itemFor(const QString &device, const QStringList &items);
/// The question's label.
QString label();

} // namespace devicechoices

} // namespace trainyard
