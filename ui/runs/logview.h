#pragma once

#include <QPlainTextEdit>
#include <QStringDecoder>

class QTimer;

namespace trainyard {

/// A run's worker.log (the worker's stdout and stderr, merged): the whole
/// file, followed as it grows. The one log viewer of the app (the run
/// details' Log page). A file over kMaxBytes shows its last kMaxBytes and
/// says what it left out.
class LogView : public QPlainTextEdit
{
    Q_OBJECT
public:
    static constexpr qint64 kMaxBytes = 16 * 1024 * 1024;

    explicit LogView(QWidget *parent = nullptr);

    void setFile(const QString &path);
    QString file() const { return m_file; }
    /// Reads what the file gained (the view's timer does this every second).
    void reload();

private:
    QString m_file;
    qint64 m_offset = 0;
    QStringDecoder m_decoder{QStringDecoder::Utf8};
    QTimer *m_timer;
};

} // namespace trainyard
