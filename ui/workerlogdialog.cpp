#include "workerlogdialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace trainyard {

WorkerLogDialog::WorkerLogDialog(const QString &runName, const QString &logFile, QWidget *parent)
    : QDialog(parent)
    , m_file(logFile)
    , m_text(new QPlainTextEdit(this))
    , m_timer(new QTimer(this))
{
    setWindowTitle(tr("Worker log: %1").arg(runName));
    setAttribute(Qt::WA_DeleteOnClose);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setMaximumBlockCount(20000); // the tail is what matters
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(buttons);
    resize(760, 480);
    connect(m_timer, &QTimer::timeout, this, &WorkerLogDialog::reload);
    m_timer->start(1000);
    reload();
}

QString WorkerLogDialog::text() const
{
    return m_text->toPlainText();
}

void WorkerLogDialog::reload()
{
    QFile file(m_file);
    if (!file.open(QIODevice::ReadOnly)) {
        if (m_offset == 0) {
            m_text->setPlainText(tr("No log yet: %1 does not exist (the run has not started).").arg(m_file));
        }
        return;
    }
    if (file.size() < m_offset) {
        m_offset = 0; // the run was retried and its folder cleared
        m_text->clear();
    }
    if (m_offset == 0) {
        m_text->clear();
        constexpr qint64 tail = 2 * 1024 * 1024;
        if (file.size() > tail) {
            m_offset = file.size() - tail;
        }
    }
    file.seek(m_offset);
    const QByteArray chunk = file.readAll();
    m_offset += chunk.size();
    if (chunk.isEmpty()) {
        return;
    }
    QScrollBar *bar = m_text->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_text->moveCursor(QTextCursor::End);
    m_text->insertPlainText(QString::fromUtf8(chunk));
    if (atEnd) {
        bar->setValue(bar->maximum());
    }
}

} // namespace trainyard
