#pragma once

#include "TableModel.h"

#include <QList>
#include <QPointF>
#include <QString>

class QChart;
class QChartView;

// Qt Charts views over TableModel columns, through the model mappers: the chart never owns a
// number (STYLE.md, habit 11). Value axes carry labelled ticks in the column's unit (1k, 128k,
// 1M tokens; 10 ms; $10k), log axes read log10 of the model through a proxy (a zero falls off
// the bottom instead of being logged), colours are fixed per series position in both palettes,
// and axes are refitted after each model reset.
namespace Charts {

QChartView* lineChart(TableModel* model, int xColumn, const QList<int>& yColumns, bool logX,
                      bool logY, const QString& title, const QString& xTitle,
                      const QString& yTitle);
// One bar stacked from every column, labelled with its value; the columns may change with each
// reset (one engine's parts, then another's), their values in `unit`.
QChartView* stackedBar(TableModel* model, const QString& title, const QString& valueTitle,
                       TableModel::Unit unit);
// Horizontal bars, one per row; labelFormat ("@value") shows each bar's value.
QChartView* barChart(TableModel* model, int labelColumn, int valueColumn, const QString& title,
                     const QString& valueTitle, bool logValues = false,
                     const QString& labelFormat = {});
// Vertical grouped bars: one category per row (labels from labelColumn), one bar set per
// value column from firstColumn to lastColumn.
QChartView* groupedBars(TableModel* model, int labelColumn, int firstColumn, int lastColumn,
                        const QString& title, const QString& valueTitle, bool logValues = false);

// Refits a chart's axes to its series (after the model changed).
void fitAxes(QChart* chart);
// A point in real units in the chart's coordinates (log10 on a log axis).
QPointF toChart(QChart* chart, QPointF real);
// A dashed line across the chart at `at` (real units) on the x axis (vertical) or y axis,
// named in the legend: the current context, the current traffic.
void setMarker(QChartView* view, double at, const QString& name, bool vertical = true);
// Takes the marker away (a value the chart cannot place, such as 0 on a log axis: never left at
// the previous value under the user's name).
void clearMarker(QChartView* view, bool vertical = true);
// The stacked bar's capacity line at `capacity` (the value axis' unit), dashed; with `budget`,
// a second, dotted line (what the engine may use: total x utilization), which a `capacity` of 0
// removes.
void setCapacity(QChartView* view, double capacity, const QString& name, bool budget = false);
// Replaces the chart by `reason` (or shows it again with an empty reason).
void setEmptyText(QChartView* view, const QString& reason);
// A tick label for a value in a unit: "128k", "10 ms", "$10k".
QString tickLabel(double value, TableModel::Unit unit);
// The fixed series colours.
void applyColours(QChart* chart);
// Applies the light or dark theme to a chart, keeping its series colours.
void applyTheme(QChart* chart, bool dark);

} // namespace Charts
