#pragma once

#include <QDialog>

class QPlainTextEdit;
class QTimer;

namespace trainyard {

/// Shows a run's worker.log (its stdout and stderr), following the file
/// while the dialog is open.
class WorkerLogDialog : public QDialog
{
    Q_OBJECT
public:
    WorkerLogDialog(const QString &runName, const QString &logFile, QWidget *parent = nullptr);
    QString text() const;

private:
    void reload();
    QString m_file;
    qint64 m_offset = 0;
    QPlainTextEdit *m_text;
    QTimer *m_timer;
};

} // namespace trainyard
