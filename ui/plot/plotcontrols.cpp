#include "ui/plot/plotcontrols.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
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
    // Short names, so that the box shows them whole in a narrow window.
    m_bandBox->addItem(tr("Repeats: lines"), int(RepeatBand::Lines));
    m_bandBox->addItem(tr("Repeats: min–max"), int(RepeatBand::MinMax));
    m_bandBox->addItem(tr("Repeats: ±std"), int(RepeatBand::Std));
    m_bandBox->setCurrentIndex(1);
    m_bandBox->setObjectName(QStringLiteral("band"));
    m_bandBox->setToolTip(tr("A repeat group's runs as separate lines, or as their mean line with a band: "
                             "min to max, or one standard deviation either side"));
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

    // One row where it fits, else the metric pickers on a second row: the
    // window must fit a small or scaled screen (960 px wide at 200 %).
    m_pickers = new QWidget(this);
    auto *pickers = new QHBoxLayout(m_pickers);
    pickers->setContentsMargins(0, 0, 0, 0);
    pickers->addWidget(new QLabel(tr("Upper:"), m_pickers));
    pickers->addWidget(m_curveBox);
    pickers->addWidget(new QLabel(tr("Lower:"), m_pickers));
    pickers->addWidget(m_evalBox);

    auto *rows = new QVBoxLayout(this);
    rows->setContentsMargins(0, 0, 0, 0);
    m_top = new QHBoxLayout;
    m_top->addWidget(new QLabel(tr("Smoothing"), this));
    m_top->addWidget(m_smoothSlider);
    m_top->addWidget(m_smoothLabel);
    m_top->addWidget(m_logBox);
    m_top->addWidget(new QLabel(tr("x:"), this));
    m_top->addWidget(m_xBox);
    m_top->addWidget(m_bandBox);
    m_top->addWidget(m_pickers);
    m_top->addStretch(1);
    m_top->addWidget(fit);
    m_top->addWidget(exportButton);
    m_bottom = new QHBoxLayout;
    rows->addLayout(m_top);
    rows->addLayout(m_bottom);
}

int PlotControls::topWidthWithoutPickers() const
{
    const int pickers = m_twoRows ? 0 : m_pickers->sizeHint().width() + m_top->spacing();
    return m_top->sizeHint().width() - pickers;
}

QSize PlotControls::minimumSizeHint() const
{
    const int pickers = m_twoRows ? 0 : m_pickers->minimumSizeHint().width() + m_top->spacing();
    const int top = m_top->minimumSize().width() - pickers;
    return {std::max(top, m_pickers->minimumSizeHint().width()), QWidget::minimumSizeHint().height()};
}

void PlotControls::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    const bool wrap = width() < topWidthWithoutPickers() + m_top->spacing() + m_pickers->sizeHint().width();
    if (wrap == m_twoRows) {
        return;
    }
    m_twoRows = wrap;
    if (wrap) {
        m_top->removeWidget(m_pickers);
        m_bottom->addWidget(m_pickers);
        m_bottom->addStretch(1);
    } else {
        delete m_bottom->takeAt(m_bottom->count() - 1); // the stretch
        m_bottom->removeWidget(m_pickers);
        m_top->insertWidget(m_top->indexOf(m_bandBox) + 1, m_pickers);
    }
    updateGeometry();
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
