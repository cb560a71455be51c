#include "ui/runs/logview.h"

#include "metrics/runfile.h"

#include <QFile>
#include <QFontDatabase>
#include <QScrollBar>
#include <QTimer>

namespace trainyard {

LogView::LogView(QWidget *parent)
    : QPlainTextEdit(parent)
    , m_timer(new QTimer(this))
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(m_timer, &QTimer::timeout, this, &LogView::reload);
    m_timer->start(1000);
}

void LogView::setFile(const QString &path)
{
    m_file = path;
    m_offset = 0;
    m_decoder.resetState();
    clear();
    reload();
}

void LogView::reload()
{
    if (m_file.isEmpty()) {
        return;
    }
    QFile file;
    QString refusal;
    if (!openRegularFile(m_file, &file, &refusal)) {
        if (m_offset == 0) {
            // A link or a FIFO in its place is refused, never followed or waited on.
            setPlainText(refusal.isEmpty() ? tr("No log yet: %1 does not exist (the run has not started).").arg(m_file)
                                           : refusal);
        }
        return;
    }
    if (file.size() < m_offset || (m_offset == 0 && !document()->isEmpty())) {
        // Retried (its folder was cleared), or the "no log yet" text: start over.
        m_offset = 0;
        m_decoder.resetState();
        clear();
    }
    if (m_offset == 0 && file.size() > kMaxBytes) {
        m_offset = file.size() - kMaxBytes;
        appendPlainText(tr("[the first %1 MiB of %2 are not shown]").arg(m_offset / (1024 * 1024)).arg(m_file));
    }
    if (!file.seek(m_offset)) {
        return;
    }
    const QByteArray chunk = file.read(kMaxBytes);
    if (chunk.isEmpty()) {
        return;
    }
    m_offset += chunk.size();
    QScrollBar *bar = verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    moveCursor(QTextCursor::End);
    // The decoder keeps a character cut in two by the last read for the next.
    insertPlainText(m_decoder.decode(chunk));
    if (atEnd) {
        bar->setValue(bar->maximum());
    }
}

} // namespace trainyard
