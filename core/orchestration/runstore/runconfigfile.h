#pragma once

#include <QJsonObject>
#include <QString>

namespace trainyard {

// The two config files of a program run's folder
// (docs/experiment-format.md#program-runs):
//   config.json  Trainyard's: the spec's "config", what TRAINYARD_CONFIG
//                names. Written at each start; never over a file that holds
//                other values (a resumed run's checkpoint belongs to the
//                values it was started with).
//   params.json  the run's: the config the script ran with, its own
//                defaults under Trainyard's values (trainyard.init(config=)),
//                which the runs table shows as config.<name>.
namespace runconfigfile {

QString configPath(const QString &runDir);
QString paramsPath(const QString &runDir);

// Writes `config` as RUN_DIR/config.json, or leaves the file that holds
// the same values. False, with `error` saying why and nothing written, when
// a file there holds other values, is no JSON object, or is not a regular
// file (a link is never followed nor replaced).
bool write(const QString &runDir, const QJsonObject &config, QString *error);

// RUN_DIR/params.json as the run wrote it, opened as every run-folder file
// is (openRegularFile: regular file, no link followed) and at most 256 KiB:
// its keys that are parameter names with a number, string, boolean or null.
// Empty when absent; when refused also `error` says why.
QJsonObject readParams(const QString &runDir, QString *error = nullptr);

} // namespace runconfigfile

} // namespace trainyard
