#pragma once

#include "orchestration/slots/slotprobe.h"

#include <QDialog>
#include <QJsonObject>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace trainyard {

/// "Measure slots…" for one lane: runs a SlotProbe on the lane's device with
/// a run spec, shows its progress (Cancel stops every copy), then the table
/// of total throughput per number of runs side by side and the
/// recommendation, remembered in SlotAdvice. "Set slots to N" asks the app
/// to change the lane (setSlotsRequested), which makes it an undoable edit.
class SlotProbeDialog : public QDialog
{
    Q_OBJECT
public:
    SlotProbeDialog(const QString &device, const QJsonObject &spec, int activeRuns, QWidget *parent = nullptr);

    /// Starts the probe (false, with the reason shown, when it cannot).
    bool start(const QList<int> &levels = SlotProbe::defaultLevels(), int steps = SlotProbe::kDefaultSteps);
    SlotProbe *probe() const { return m_probe; }
    QTableWidget *table() const { return m_table; }
    QPushButton *setSlotsButton() const { return m_setSlots; }
    QString statusText() const;

Q_SIGNALS:
    void setSlotsRequested(int slotCount);
    /// A result was written to the SlotAdvice file.
    void adviceRecorded();

public Q_SLOTS:
    void reject() override; // cancels a running probe first

private:
    void showResult(const SlotProbeResult &result);
    void showFailure(const QString &message);

    QString m_device;
    QJsonObject m_spec;
    SlotProbe *m_probe;
    QLabel *m_status;
    QProgressBar *m_progress;
    QTableWidget *m_table;
    QPushButton *m_setSlots;
    QPushButton *m_close;
    int m_recommended = 0;
};

} // namespace trainyard
