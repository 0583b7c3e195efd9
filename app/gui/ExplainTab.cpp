#include "ExplainTab.h"

#include "Charts.h"
#include "ExplainController.h"
#include "FormattedDelegate.h"
#include "Reflow.h"
#include "TableModel.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSlider>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace {

// Paints each weight as a blue cell of matching depth, the number on top.
class HeatDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* p, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override
    {
        const double w = index.data(Qt::DisplayRole).toDouble();
        const QColor c = QColor::fromRgbF(1.0 - 0.85 * w, 1.0 - 0.6 * w, 1.0);
        p->fillRect(option.rect, c);
        p->setPen(w > 0.55 ? Qt::white : Qt::black);
        p->drawText(option.rect, Qt::AlignCenter, QString::number(w, 'f', 2));
    }
};

} // namespace

ExplainTab::ExplainTab(ExplainController* explain, QWidget* parent)
    : QWidget(parent), m_explain(explain)
{
    // 1. "it": shares of the raw scores against softmax weights.
    QChartView* it = Charts::barChart(
        explain->itModel(), 0, 3,
        tr("A toy: what \"it\" attends to (hand-set scores, softmax sharpens them)"),
        tr("share of attention"));
    auto* itTable = new QTableView;
    itTable->setModel(explain->itModel());
    itTable->setItemDelegate(new FormattedDelegate(itTable));
    itTable->verticalHeader()->hide();
    itTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    itTable->setMaximumHeight(130);
    auto* blend = new QLabel(
        tr("A toy with hand-set scores and no mask (the sentence's matrix beside it is computed "
           "with its own scores and the causal mask): scores 2.0, 1.0, 0.5 become weights 0.63, "
           "0.23, 0.14; with V(animal) = (1, 0), "
           "V(tired) = (0, 1), V(street) = (1, 1) the blend is (%1, %2).")
            .arg(explain->blendX(), 0, 'f', 2)
            .arg(explain->blendY(), 0, 'f', 2));
    blend->setWordWrap(true);

    // 2. The sentence heatmap.
    auto* heat = new QTableView;
    heat->setModel(explain->heatmap());
    heat->setItemDelegate(new HeatDelegate(heat));
    heat->verticalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    heat->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    heat->setSelectionMode(QAbstractItemView::NoSelection);
    heat->verticalHeader()->setVisible(true);
    auto* causal = new QCheckBox(tr("&Causal mask: each row sees only the past"));
    causal->setChecked(explain->causal());
    auto* temperature = new QSlider(Qt::Horizontal);
    temperature->setRange(10, 400);
    temperature->setValue(100);
    auto* tLabel = new QLabel(tr("Temperature 1.00"));
    connect(causal, &QCheckBox::toggled, explain, &ExplainController::setCausal);
    connect(temperature, &QSlider::valueChanged, explain, [explain, tLabel](int v) {
        explain->setTemperature(v / 100.0);
        tLabel->setText(tr("Temperature %1").arg(v / 100.0, 0, 'f', 2));
    });
    auto* heatBox = new QVBoxLayout;
    auto* heatCaption = new QLabel(
        tr("<b>\"The animal didn't cross the street because it was tired\"</b>: rows are "
           "the queries (the token doing the looking), columns the keys"));
    heatCaption->setWordWrap(true);
    heatBox->addWidget(heatCaption);
    heatBox->addWidget(heat, 1);
    auto* controls = new QHBoxLayout;
    controls->addWidget(causal);
    controls->addWidget(tLabel);
    controls->addWidget(temperature, 1);
    heatBox->addLayout(controls);

    // 3. Why sqrt(d_k): the two-panel chart.
    QChartView* saturation =
        Charts::lineChart(explain->sqrtDkModel(), 0, {1, 2}, true, false,
                          tr("Top softmax weight (1 = one-hot)"), tr("d_k"), tr("mean top weight"));
    QChartView* gradient =
        Charts::lineChart(explain->sqrtDkModel(), 0, {3, 4}, true, true,
                          tr("Gradient reaching the scores"), tr("d_k"), tr("mean Jacobian norm"));
    m_charts = {it, saturation, gradient};
    // Until the experiment (run when the tab is first shown, on a worker) is done, the two
    // charts say so: empty axes drew their titles over each other at the top left.
    auto running = [saturation, gradient, model = explain->sqrtDkModel()] {
        const QString why =
            model->rowCount() > 0 ? QString() : tr("Running the sqrt(d_k) experiment…");
        Charts::setEmptyText(saturation, why);
        Charts::setEmptyText(gradient, why);
    };
    running();
    connect(explain->sqrtDkModel(), &QAbstractItemModel::modelReset, this, running);

    auto* grid = new QGridLayout(this);
    auto* left = new QVBoxLayout;
    left->addWidget(it, 1);
    left->addWidget(itTable);
    left->addWidget(blend);
    // Two columns where there is room; one on a small screen, so that no chart's ticks and
    // legend shrink to "...".
    new Reflow(this, 1100, [=](bool narrow) {
        grid->removeItem(left);
        grid->removeItem(heatBox);
        grid->removeWidget(saturation);
        grid->removeWidget(gradient);
        for (int i = 0; i < 4; ++i) {
            grid->setRowStretch(i, 0);
            grid->setRowMinimumHeight(i, 0);
        }
        if (narrow) {
            grid->addLayout(left, 0, 0);
            grid->addLayout(heatBox, 1, 0);
            grid->addWidget(saturation, 2, 0);
            grid->addWidget(gradient, 3, 0);
            grid->setColumnStretch(1, 0);
            for (int i = 0; i < 4; ++i)
                grid->setRowMinimumHeight(i, 320);
        } else {
            grid->addLayout(left, 0, 0);
            grid->addLayout(heatBox, 0, 1);
            grid->addWidget(saturation, 1, 0);
            grid->addWidget(gradient, 1, 1);
            grid->setColumnStretch(0, 2);
            grid->setColumnStretch(1, 3);
            grid->setRowStretch(0, 3);
            grid->setRowStretch(1, 2);
        }
    });
    grid->addLayout(left, 0, 0);
    grid->addLayout(heatBox, 0, 1);
    grid->addWidget(saturation, 1, 0);
    grid->addWidget(gradient, 1, 1);
    grid->setColumnStretch(0, 2);
    grid->setColumnStretch(1, 3);
    grid->setRowStretch(0, 3);
    grid->setRowStretch(1, 2);
}

void ExplainTab::showEvent(QShowEvent* event)
{
    m_explain->startSqrtDk(); // computed when first seen, not at start-up
    QWidget::showEvent(event);
}
