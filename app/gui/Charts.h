#pragma once

#include <QList>
#include <QString>

class QChart;
class QChartView;
class TableModel;
class QAbstractSeries;

// Qt Charts views over TableModel columns, through the model mappers: the chart never owns a
// number (STYLE.md, habit 11). Axes are refitted after each model reset.
namespace Charts {

QChartView* lineChart(TableModel* model, int xColumn, const QList<int>& yColumns, bool logX,
                      bool logY, const QString& title, const QString& xTitle,
                      const QString& yTitle);
QChartView* stackedBar(TableModel* model, const QString& title, const QString& valueTitle);
QChartView* barChart(TableModel* model, int labelColumn, int valueColumn, const QString& title,
                     const QString& valueTitle, bool logValues = false);

// Vertical grouped bars: one category per row (labels from labelColumn), one bar set per
// value column from firstColumn to lastColumn.
QChartView* groupedBars(TableModel* model, int labelColumn, int firstColumn, int lastColumn,
                        const QString& title, const QString& valueTitle, bool logValues = false);

// Refits a chart's axes to its series (call after the model changed).
void fitAxes(QChart* chart);
// Applies the light or dark theme to a chart, keeping its series colours distinct.
void applyTheme(QChart* chart, bool dark);

} // namespace Charts
