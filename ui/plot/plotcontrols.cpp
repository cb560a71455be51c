#include "ui/plot/plotcontrols.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>

#include <cmath>

namespace trainyard {

PlotControls::PlotControls(double smoothing, QWidget *parent)
    : QWidget(parent)
    , m_smoothSlider(new QSlider(Qt::Horizontal, this))
    , m_smoothLabel(new QLabel(this))
    , m_logBox(new QCheckBox(tr("Log scale"), this))
    , m_xBox(new QComboBox(this))
    , m_bandBox(new QComboBox(this))
    , m_curveBox(new QComboBox(this))
    , m_evalBox(new QComboBox(this))
{
    m_smoothSlider->setRange(0, 99);
    m_smoothSlider->setValue(int(std::round(smoothing * 100)));
    m_smoothSlider->setObjectName(QStringLiteral("smoothing"));
    m_smoothSlider->setToolTip(tr("TensorBoard-style smoothing (exponential moving average weight)"));
    m_smoothSlider->setMaximumWidth(160);
    m_smoothLabel->setText(QString::number(smoothing, 'f', 2));
    m_smoothLabel->setMinimumWidth(32);
    connect(m_smoothSlider, &QSlider::valueChanged, this, [this](int v) { Q_EMIT smoothingChosen(v / 100.0); });
    m_logBox->setObjectName(QStringLiteral("logScale"));
    connect(m_logBox, &QCheckBox::toggled, this, &PlotControls::logScaleChosen);
    m_xBox->addItem(tr("Step"), int(XAxis::Step));
    m_xBox->addItem(tr("Epoch"), int(XAxis::Epoch));
    m_xBox->addItem(tr("Wall time"), int(XAxis::Wall));
    m_xBox->setObjectName(QStringLiteral("xAxis"));
    connect(m_xBox, &QComboBox::currentIndexChanged, this,
            [this](int) { Q_EMIT xAxisChosen(XAxis(m_xBox->currentData().toInt())); });
    m_bandBox->addItem(tr("Repeats: separate lines"), int(RepeatBand::Lines));
    m_bandBox->addItem(tr("Repeats: mean, min–max band"), int(RepeatBand::MinMax));
    m_bandBox->addItem(tr("Repeats: mean, ±std band"), int(RepeatBand::Std));
    m_bandBox->setCurrentIndex(1);
    m_bandBox->setObjectName(QStringLiteral("band"));
    connect(m_bandBox, &QComboBox::currentIndexChanged, this,
            [this](int) { Q_EMIT bandChosen(RepeatBand(m_bandBox->currentData().toInt())); });
    m_curveBox->setObjectName(QStringLiteral("curveMetric"));
    m_curveBox->setToolTip(tr("The metric of the upper plot, smoothed: the loss or any other a run reports"));
    m_evalBox->setObjectName(QStringLiteral("evalMetric"));
    m_evalBox->setToolTip(tr("The metric of the lower plot, point by point: an evaluation metric or any other"));
    for (QComboBox *box : {m_curveBox, m_evalBox}) {
        box->setMinimumContentsLength(8);
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        // The user's pick only: the list changes with the selection, and a
        // metric shown for want of the user's is no choice to remember.
        connect(box, &QComboBox::textActivated, this, [this, box](const QString &m) {
            if (m.isEmpty()) {
                return;
            }
            if (box == m_curveBox) {
                Q_EMIT curveMetricChosen(m);
            } else {
                Q_EMIT evalMetricChosen(m);
            }
        });
    }

    auto *fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show all data and follow new points (or double-click the plot); "
                       "Ctrl+drag on a plot zooms to a box"));
    connect(fit, &QToolButton::clicked, this, &PlotControls::fitRequested);
    auto *exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto *exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("PNG image…"), this, [this] { Q_EMIT exportRequested(QStringLiteral("png")); });
    exportMenu->addAction(tr("PDF document…"), this, [this] { Q_EMIT exportRequested(QStringLiteral("pdf")); });
    exportMenu->addAction(tr("CSV data…"), this, [this] { Q_EMIT exportRequested(QStringLiteral("csv")); });
    exportButton->setMenu(exportMenu);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Smoothing"), this));
    layout->addWidget(m_smoothSlider);
    layout->addWidget(m_smoothLabel);
    layout->addWidget(m_logBox);
    layout->addWidget(new QLabel(tr("x:"), this));
    layout->addWidget(m_xBox);
    layout->addWidget(m_bandBox);
    layout->addWidget(new QLabel(tr("Upper:"), this));
    layout->addWidget(m_curveBox);
    layout->addWidget(new QLabel(tr("Lower:"), this));
    layout->addWidget(m_evalBox);
    layout->addStretch(1);
    layout->addWidget(fit);
    layout->addWidget(exportButton);
}

void PlotControls::setSmoothing(double weight)
{
    m_smoothLabel->setText(QString::number(weight, 'f', 2));
    if (m_smoothSlider->value() != int(std::round(weight * 100))) {
        m_smoothSlider->setValue(int(std::round(weight * 100)));
    }
}

void PlotControls::setLogScale(bool on)
{
    m_logBox->setChecked(on);
}

void PlotControls::setXAxis(XAxis axis)
{
    m_xBox->setCurrentIndex(m_xBox->findData(int(axis)));
}

void PlotControls::setBand(RepeatBand band)
{
    m_bandBox->setCurrentIndex(m_bandBox->findData(int(band)));
}

void PlotControls::setMetrics(const QStringList &metrics, const QString &upper, const QString &lower)
{
    for (QComboBox *box : {m_curveBox, m_evalBox}) {
        const QSignalBlocker blocker(box);
        bool same = box->count() == metrics.size();
        for (int i = 0; same && i < metrics.size(); ++i) {
            same = box->itemText(i) == metrics.at(i);
        }
        if (!same) {
            box->clear();
            box->addItems(metrics);
        }
        box->setCurrentIndex(box->findText(box == m_curveBox ? upper : lower));
    }
}

} // namespace trainyard
