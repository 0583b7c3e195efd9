#include "Charts.h"

#include "TableModel.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBarModelMapper>
#include <QHorizontalBarSeries>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QVBarModelMapper>
#include <QVXYModelMapper>
#include <QValueAxis>

#include <cmath>
#include <limits>

namespace Charts {

namespace {

QChartView* viewFor(QChart* chart)
{
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    return view;
}

QAbstractAxis* makeAxis(bool log, const QString& title)
{
    QAbstractAxis* axis;
    if (log) {
        auto* a = new QLogValueAxis;
        a->setLabelFormat(QStringLiteral("%.3g"));
        a->setMinorTickCount(-1);
        axis = a;
    } else {
        auto* a = new QValueAxis;
        a->setLabelFormat(QStringLiteral("%.3g"));
        axis = a;
    }
    axis->setTitleText(title);
    return axis;
}

void fit(QAbstractAxis* axis, double lo, double hi)
{
    if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    if (auto* la = qobject_cast<QLogValueAxis*>(axis)) {
        lo = std::max(lo, 1e-12);
        const double a = std::pow(10.0, std::floor(std::log10(lo)));
        const double b = std::pow(10.0, std::ceil(std::log10(std::max(hi, lo * 10))));
        la->setRange(a, b);
    } else if (auto* va = qobject_cast<QValueAxis*>(axis)) {
        va->setRange(std::min(0.0, lo), hi > 0 ? hi * 1.08 : 1.0);
        va->applyNiceNumbers();
    }
}

} // namespace

QChartView* lineChart(TableModel* model, int xColumn, const QList<int>& yColumns, bool logX,
                      bool logY, const QString& title, const QString& xTitle, const QString& yTitle)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    QAbstractAxis* ax = makeAxis(logX, xTitle);
    QAbstractAxis* ay = makeAxis(logY, yTitle);
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);
    for (int col : yColumns) {
        auto* series = new QLineSeries(chart);
        series->setName(model->headerData(col, Qt::Horizontal, Qt::DisplayRole).toString());
        auto* mapper = new QVXYModelMapper(series);
        mapper->setXColumn(xColumn);
        mapper->setYColumn(col);
        mapper->setSeries(series);
        mapper->setModel(model);
        chart->addSeries(series);
        series->attachAxis(ax);
        series->attachAxis(ay);
    }
    QObject::connect(model, &QAbstractItemModel::modelReset, chart, [chart] { fitAxes(chart); });
    fitAxes(chart);
    return viewFor(chart);
}

namespace {

// Feeds a bar series from model columns first..last through a QVBarModelMapper, naming each
// bar set after its column as the mapper (re)creates the sets.
void mapBars(QAbstractBarSeries* series, TableModel* model, int first, int last)
{
    auto* mapper = new QVBarModelMapper(series);
    mapper->setFirstBarSetColumn(first);
    mapper->setLastBarSetColumn(last);
    mapper->setSeries(series);
    mapper->setModel(model);
    auto name = [series, model, first] {
        const auto sets = series->barSets();
        for (int i = 0; i < sets.size(); ++i)
            sets[i]->setLabel(
                model->headerData(first + i, Qt::Horizontal, Qt::DisplayRole).toString());
    };
    QObject::connect(series, &QAbstractBarSeries::barsetsAdded, series, name);
    name();
}

// A bar chart's skeleton: the series, a category axis and a value axis; categories follow
// labelColumn (or stay fixed when labelColumn < 0) and the value axis refits on every reset.
QChart* barChartBase(QAbstractBarSeries* series, TableModel* model, int first, int last,
                     int labelColumn, bool horizontal, bool logValues, const QString& title,
                     const QString& valueTitle, const QStringList& fixedCategories = {})
{
    auto* chart = new QChart;
    chart->setTitle(title);
    series->setParent(chart);
    mapBars(series, model, first, last);
    chart->addSeries(series);
    auto* cats = new QBarCategoryAxis;
    cats->append(fixedCategories);
    chart->addAxis(cats, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
    series->attachAxis(cats);
    QAbstractAxis* values = makeAxis(logValues, valueTitle);
    chart->addAxis(values, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
    series->attachAxis(values);
    auto relabel = [chart, cats, model, labelColumn] {
        if (labelColumn >= 0) {
            QStringList labels;
            for (int r = 0; r < model->rowCount(); ++r)
                labels << model->value(r, labelColumn).toString();
            cats->setCategories(labels);
        }
        fitAxes(chart);
    };
    QObject::connect(model, &QAbstractItemModel::modelReset, chart, relabel);
    relabel();
    return chart;
}

} // namespace

QChartView* stackedBar(TableModel* model, const QString& title, const QString& valueTitle)
{
    return viewFor(barChartBase(new QStackedBarSeries, model, 0, model->columnCount() - 1, -1,
                                false, false, title, valueTitle, {QObject::tr("one GPU")}));
}

QChartView* barChart(TableModel* model, int labelColumn, int valueColumn, const QString& title,
                     const QString& valueTitle, bool logValues)
{
    QChart* chart = barChartBase(new QHorizontalBarSeries, model, valueColumn, valueColumn,
                                 labelColumn, true, logValues, title, valueTitle);
    chart->legend()->hide();
    return viewFor(chart);
}

QChartView* groupedBars(TableModel* model, int labelColumn, int firstColumn, int lastColumn,
                        const QString& title, const QString& valueTitle, bool logValues)
{
    return viewFor(barChartBase(new QBarSeries, model, firstColumn, lastColumn, labelColumn, false,
                                logValues, title, valueTitle));
}

void fitAxes(QChart* chart)
{
    double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
    bool bars = false;
    for (QAbstractSeries* s : chart->series()) {
        if (auto* xy = qobject_cast<QXYSeries*>(s)) {
            for (const QPointF& p : xy->points()) {
                if (p.x() > 0 ||
                    !qobject_cast<QLogValueAxis*>(chart->axes(Qt::Horizontal).value(0)))
                    xlo = std::min(xlo, p.x()), xhi = std::max(xhi, p.x());
                if (p.y() > 0 || !qobject_cast<QLogValueAxis*>(chart->axes(Qt::Vertical).value(0)))
                    ylo = std::min(ylo, p.y()), yhi = std::max(yhi, p.y());
            }
        } else if (auto* bs = qobject_cast<QAbstractBarSeries*>(s)) {
            bars = true;
            const bool stacked = qobject_cast<QStackedBarSeries*>(s) != nullptr;
            double total = 0;
            for (QBarSet* set : bs->barSets())
                for (int i = 0; i < set->count(); ++i) {
                    const double v = set->at(i);
                    total += stacked ? v : 0;
                    if (v > 0)
                        ylo = std::min(ylo, v);
                    yhi = std::max(yhi, stacked ? total : v);
                }
        }
    }
    if (bars) {
        const bool horizontal = !chart->series().isEmpty() &&
                                qobject_cast<QHorizontalBarSeries*>(chart->series().first());
        for (QAbstractAxis* a : chart->axes(horizontal ? Qt::Horizontal : Qt::Vertical))
            fit(a, ylo, yhi);
        return;
    }
    for (QAbstractAxis* a : chart->axes(Qt::Horizontal))
        fit(a, xlo, xhi);
    for (QAbstractAxis* a : chart->axes(Qt::Vertical))
        fit(a, ylo, yhi);
}

void applyTheme(QChart* chart, bool dark)
{
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
}

} // namespace Charts
