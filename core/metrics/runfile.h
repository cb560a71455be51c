#pragma once

#include <QString>

#include <sys/stat.h>

class QFile;

namespace trainyard {

// How every file of a run folder (metrics.jsonl, status.json, spec.json,
// notes.json, worker.log) and the runs root's state file is opened for
// reading: a run folder is written by programs Trainyard does not control,
// so a name there is only a claim. open(2) with O_NOFOLLOW (a link is
// refused, never followed to another run's file) and O_NONBLOCK (a FIFO or
// a device never stalls the caller, the window's thread included), then
// fstat: only a regular file is read. On success `file` is open (it owns
// the descriptor). False otherwise, with `error` empty when the file does
// not exist (normal before a run writes it) and else saying why: "PATH is
// not a regular file (a FIFO); Trainyard does not follow links in run
// folders". `st`, when given, gets the open file's fstat (its owner and
// mode, for a caller that must check them).
bool openRegularFile(const QString &path, QFile *file, QString *error, struct stat *st = nullptr);

// The bytes of the run-folder file at `path`, opened as above, at most
// `max`: false with `error` saying why ("PATH does not exist" when absent).
bool readRegularFile(const QString &path, QByteArray *bytes, QString *error, qint64 max = 16 * 1024 * 1024);

} // namespace trainyard
