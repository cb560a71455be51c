#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>

#include <cstdint>

namespace trainyard {

// One scalar of a TensorBoard events file.
struct TensorBoardScalar
{
    QString tag;
    std::int64_t step = 0;
    double wallTime = 0; // seconds since 1970
    double value = 0;
};

// What an events file holds that Trainyard uses: its scalars, in file
// order, and a run's hparams (the hparams plugin's session start info).
struct TensorBoardEvents
{
    QString fileVersion;
    double firstWallTime = 0; // the first record's: when its writer started
    QList<TensorBoardScalar> scalars;
    QList<QPair<QString, QJsonValue>> hparams;
    qint64 records = 0; // complete records read
    // Empty when the whole file was read; else why the reading stopped,
    // naming the file and the record ("FILE: record 12 at byte 3040: data
    // CRC mismatch"), with what came before it kept above.
    QString error;
};

// Reads a TensorBoard events file: both TF1 scalars (Summary.Value's
// simple_value) and TF2 ones (a tensor of one DT_FLOAT or DT_DOUBLE, in
// tensor_content or float_val/double_val, of a tag whose metadata names no
// plugin but "scalars"). Both CRCs of every record are checked.
class TensorBoardEventReader
{
public:
    // The file is opened as a run's files are (openRegularFile: a link or
    // anything but a regular file refused, a FIFO never waited on).
    static TensorBoardEvents readFile(const QString &path);
    // The same from bytes; `name` is what messages call them.
    static TensorBoardEvents parse(const QByteArray &bytes, const QString &name);
    // Whether `fileName` is named as TensorBoard's writers name event files
    // ("events.out.tfevents.*"), which is how a folder's files are told apart.
    static bool isEventFileName(const QString &fileName);
};

} // namespace trainyard
