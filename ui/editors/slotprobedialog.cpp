#include "ui/editors/slotprobedialog.h"

#include "orchestration/runspec/runspecview.h"
#include "orchestration/slots/slotadvice.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace trainyard {

SlotProbeDialog::SlotProbeDialog(const QString &device, const QJsonObject &spec, int activeRuns, QWidget *parent)
    : QDialog(parent)
    , m_device(device)
    , m_spec(spec)
    , m_probe(new SlotProbe(this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_table(new QTableWidget(0, 3, this))
    , m_setSlots(new QPushButton(this))
    , m_close(new QPushButton(tr("&Cancel"), this))
{
    const QString model = RunSpecView(spec).modelType();
    setWindowTitle(tr("Measure slots: %1 on %2").arg(model, device));
    m_status->setWordWrap(true);
    m_progress->setRange(0, 100);
    m_table->setHorizontalHeaderLabels({tr("Runs side by side"), tr("Total samples/s"), tr("vs 1 run")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->hide();
    m_setSlots->hide();

    auto *layout = new QVBoxLayout(this);
    if (activeRuns > 0) {
        auto *note = new QLabel(tr("%n run(s) are training now and share the machine: the figures will be lower "
                                   "than on an idle device.",
                                   nullptr, activeRuns),
                                this);
        note->setWordWrap(true);
        layout->addWidget(note);
    }
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    layout->addWidget(m_table);
    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_setSlots, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_close, QDialogButtonBox::RejectRole);
    layout->addWidget(buttons);
    connect(m_close, &QPushButton::clicked, this, &SlotProbeDialog::reject);
    connect(m_setSlots, &QPushButton::clicked, this, [this] {
        Q_EMIT setSlotsRequested(m_recommended);
        accept();
    });

    connect(m_probe, &SlotProbe::progress, this, [this](int level, int count, int percent) {
        m_progress->setValue(percent);
        m_status->setText(tr("Level %1 of %2 …").arg(level).arg(count));
    });
    connect(m_probe, &SlotProbe::finished, this, &SlotProbeDialog::showResult);
    connect(m_probe, &SlotProbe::failed, this, &SlotProbeDialog::showFailure);
    resize(460, 300);
}

bool SlotProbeDialog::start(const QList<int> &levels, int steps)
{
    QString error;
    if (!m_probe->start(m_device, m_spec, levels, steps, &error)) {
        showFailure(error);
        return false;
    }
    QStringList l;
    for (int k : levels) {
        l << QString::number(k);
    }
    m_status->setText(tr("Training %1 copies side by side on %2, %3 steps each …")
                          .arg(l.join(QStringLiteral(", ")), m_device)
                          .arg(steps));
    return true;
}

QString SlotProbeDialog::statusText() const
{
    return m_status->text();
}

void SlotProbeDialog::reject()
{
    m_probe->cancel();
    QDialog::reject();
}

void SlotProbeDialog::showResult(const SlotProbeResult &result)
{
    m_progress->hide();
    m_table->setRowCount(static_cast<int>(result.levels.size()));
    for (int row = 0; row < result.levels.size(); ++row) {
        const SlotProbeLevel &l = result.levels.at(row);
        const QString cells[] = {QString::number(l.copies), QString::number(l.samplesPerSecond, 'f', 0),
                                 QStringLiteral("%1×").arg(l.ratio, 0, 'f', 2)};
        for (int c = 0; c < 3; ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, c, item);
        }
    }
    m_table->show();
    m_recommended = result.recommended;
    QString text =
        tr("Recommended: %n slot(s) for %1 on %2.", nullptr, result.recommended).arg(result.model, result.deviceName);
    SlotAdvice advice;
    QString error;
    if (advice.record(result, &error)) {
        Q_EMIT adviceRecorded();
    } else {
        text += QLatin1Char('\n') + tr("Not remembered: %1").arg(error);
    }
    m_status->setText(text);
    m_setSlots->setText(tr("&Set slots to %1").arg(result.recommended));
    m_setSlots->show();
    m_setSlots->setDefault(true);
    m_close->setText(tr("&Close"));
}

void SlotProbeDialog::showFailure(const QString &message)
{
    m_progress->hide();
    m_status->setText(tr("The measurement failed: %1").arg(message));
    m_close->setText(tr("&Close"));
}

} // namespace trainyard
