#include "Charts.h"

#include "TableModel.h"
#include "base/Units.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QHBarModelMapper>
#include <QHorizontalBarSeries>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QVBarModelMapper>
#include <QVBoxLayout>
#include <QVXYModelMapper>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace Charts {

using Unit = TableModel::Unit;

namespace {

// Markers (this plan's context, your traffic, the GPU's memory) in a neutral grey that no series
// uses, dashed.
const QColor kMarker(0x9c, 0xa3, 0xaf);

// A value a log axis cannot show (zero conversations when nothing fits) is drawn here, far
// below every axis, so its line drops off the bottom rather than asking Qt for log10(0).
constexpr double kOffChart = -40;

// One colour per series position, the same in both palettes (a chart theme would reassign
// them): blue, amber, green, red, violet, cyan, slate, pink.
const QColor kColours[] = {QColor(0x25, 0x63, 0xeb), QColor(0xf5, 0x9e, 0x0b),
                           QColor(0x10, 0xb9, 0x81), QColor(0xef, 0x44, 0x44),
                           QColor(0x8b, 0x5c, 0xf6), QColor(0x06, 0xb6, 0xd4),
                           QColor(0x64, 0x74, 0x8b), QColor(0xec, 0x48, 0x99)};

// The model columns a chart reads, as log10 for the columns on a log axis.
class LogColumns : public QIdentityProxyModel
{
public:
    LogColumns(QList<int> columns, QObject* parent)
        : QIdentityProxyModel(parent), m_columns(std::move(columns))
    {
    }

    QVariant data(const QModelIndex& index, int role) const override
    {
        const QVariant v = QIdentityProxyModel::data(index, role);
        if (role != Qt::DisplayRole || !m_columns.contains(index.column()) || !v.isValid())
            return v;
        const double x = v.toDouble();
        return x > 0 ? std::log10(x) : kOffChart;
    }

private:
    QList<int> m_columns;
};

// Axis properties: whether it is log (its series carry log10 values) and its unit.
void tagAxis(QAbstractAxis* axis, bool log, Unit unit)
{
    axis->setProperty("attnplanLog", log);
    axis->setProperty("attnplanUnit", int(unit));
}

bool isLog(const QAbstractAxis* axis)
{
    return axis && axis->property("attnplanLog").toBool();
}

QString shortNumber(double v)
{
    const double a = std::abs(v);
    auto trim = [](double x) { return QString::number(x, 'g', 3); };
    if (a >= 1e12)
        return trim(v / 1e12) + QStringLiteral("T");
    if (a >= 1e9)
        return trim(v / 1e9) + QStringLiteral("B");
    if (a >= 1e6)
        return trim(v / 1e6) + QStringLiteral("M");
    if (a >= 1e3)
        return trim(v / 1e3) + QStringLiteral("k");
    return trim(v);
}

} // namespace

QString tickLabel(double v, Unit unit)
{
    const double a = std::abs(v);
    switch (unit) {
    case Unit::Tokens:
        return a >= 1 ? QString::fromStdString(attnplan::shortTokens(std::llround(v)))
                      : QString::number(v, 'g', 3);
    case Unit::Seconds:
        if (a == 0)
            return QStringLiteral("0");
        if (a >= 1)
            return QString::number(v, 'g', 3) + QStringLiteral(" s");
        if (a >= 1e-3)
            return QString::number(v * 1e3, 'g', 3) + QStringLiteral(" ms");
        return QString::number(v * 1e6, 'g', 3) + QStringLiteral(" µs");
    case Unit::Dollars:
        return QStringLiteral("$") + shortNumber(v);
    case Unit::Flops:
        return shortNumber(v).replace(QStringLiteral("B"), QStringLiteral("G"));
    case Unit::Bytes:
        return QString::fromStdString(attnplan::formatBytes(v));
    case Unit::Percent:
        return QString::number(100 * v, 'g', 3) + QStringLiteral("%");
    default:
        return shortNumber(v);
    }
}

namespace {

// The binary unit a linear axis of bytes up to `top` is said in: 1, 1024, 1024^2 ... (to PiB).
double bytesUnit(double top)
{
    return std::pow(
        1024.0, std::clamp(std::floor(std::log(std::max(top, 1.0)) / std::log(1024.0)), 0.0, 5.0));
}

// Tick values for [lo, hi] (real units): powers of 2 for tokens on a log axis, 1-2-5 decades
// for other log axes, 1-2-5 steps on a linear one. Also widens [lo, hi] to the outer ticks.
QList<double> ticks(double& lo, double& hi, bool log, Unit unit)
{
    QList<double> out;
    if (log) {
        lo = std::max(lo, 1e-15);
        hi = std::max(hi, lo * 1.0001);
        // Tokens and bytes on powers of two (bytes are said in KiB, MiB and GiB).
        if ((unit == Unit::Tokens || unit == Unit::Bytes) && lo >= 1) {
            int k0 = int(std::floor(std::log2(lo))), k1 = int(std::ceil(std::log2(hi)));
            const int step = std::max(1, (k1 - k0 + 4) / 5);
            k0 -= ((k0 % step) + step) % step; // labels on 1k, 4k, 16k... when step is 2
            for (int k = k0; k <= k1 + step - 1; k += step) {
                out << std::ldexp(1.0, k);
                if (k >= k1)
                    break;
            }
        } else {
            const int d0 = int(std::floor(std::log10(lo))), d1 = int(std::ceil(std::log10(hi)));
            const int step = std::max(1, (d1 - d0 + 5) / 6);
            for (int d = d0; d <= d1; d += step) {
                out << std::pow(10.0, d);
                if (d1 - d0 <= 1 && d < d1)
                    out << 2 * std::pow(10.0, d) << 5 * std::pow(10.0, d);
            }
        }
        lo = out.first();
        hi = out.last();
        return out;
    }
    lo = std::min(0.0, lo);
    if (!(hi > lo))
        hi = lo + 1;
    const double raw = (hi - lo) / 5;
    // Bytes step in 1-2-5 of the binary unit the axis is said in, its top's (0.5 MiB, not
    // 500 KiB beside 1.46 MiB: a twenty-second review's Compare axis).
    const double base = unit == Unit::Bytes && hi >= 1024 ? bytesUnit(hi) : 1.0;
    const double mag = base * std::pow(10.0, std::floor(std::log10(raw / base)));
    const double step = raw / mag <= 1   ? mag
                        : raw / mag <= 2 ? 2 * mag
                        : raw / mag <= 5 ? 5 * mag
                                         : 10 * mag;
    hi = std::ceil(hi * 1.0001 / step) * step;
    lo = std::floor(lo / step) * step;
    for (double v = lo; v <= hi + step / 2; v += step)
        out << (std::abs(v) < step * 1e-9 ? 0.0 : v);
    return out;
}

// Sets a category axis to labelled ticks over [lo, hi] (real units).
void fit(QAbstractAxis* axis, double lo, double hi)
{
    if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    auto* cat = qobject_cast<QCategoryAxis*>(axis);
    if (!cat) {
        if (auto* la = qobject_cast<QLogValueAxis*>(axis)) {
            lo = std::max(lo, 1e-12);
            la->setRange(std::pow(10.0, std::floor(std::log10(lo))),
                         std::pow(10.0, std::ceil(std::log10(std::max(hi, lo * 10)))));
        }
        return;
    }
    const bool log = isLog(axis);
    const Unit unit = Unit(axis->property("attnplanUnit").toInt());
    const QList<double> values = ticks(lo, hi, log, unit);
    for (const QString& label : cat->categoriesLabels())
        cat->remove(label);
    auto pos = [log](double v) { return log ? std::log10(v) : v; };
    cat->setStartValue(pos(values.first()));
    // A linear axis of bytes says every tick in one unit, its top's.
    const double byteUnit = unit == Unit::Bytes && !log ? bytesUnit(values.last()) : 0;
    static const char* const byteUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    for (double v : values) {
        QString label =
            byteUnit > 0
                ? QString::number(v / byteUnit, 'g', 3) + QLatin1Char(' ') +
                      QLatin1String(
                          byteUnits[int(std::lround(std::log(byteUnit) / std::log(1024.0)))])
                : tickLabel(v, unit);
        while (cat->categoriesLabels().contains(label))
            label += QChar(0x200b); // zero-width space: labels must be unique
        cat->append(label, pos(v));
    }
    cat->setRange(pos(lo), pos(hi));
}

QAbstractAxis* makeAxis(bool log, Unit unit, const QString& title)
{
    auto* axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setTitleText(title);
    tagAxis(axis, log, unit);
    return axis;
}

QChartView* viewFor(QChart* chart)
{
    if (qApp && qApp->property("attnplanDark").toBool())
        chart->setTheme(QChart::ChartThemeDark);
    chart->setBackgroundRoundness(0);
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(220, 200);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);
    // The empty state: a reason in place of a chart.
    auto* empty = new QLabel(view);
    empty->setObjectName(QStringLiteral("emptyState"));
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    empty->setMargin(24);
    empty->hide();
    auto* layout = new QVBoxLayout(view);
    layout->addWidget(empty);
    chart->setProperty("attnplanLegend", chart->legend()->isVisible());
    applyColours(chart);
    return view;
}

bool isMarker(const QAbstractSeries* s)
{
    return s->property("attnplanMarker").toBool();
}

} // namespace

void applyColours(QChart* chart)
{
    int i = 0;
    for (QAbstractSeries* s : chart->series()) {
        // Points that name their colour (attnplanColour) keep it in either palette: the dark
        // theme drew a chart's plans pale blue beside its blue front (an eleventh review's P3).
        if (auto* points = qobject_cast<QScatterSeries*>(s))
            if (const QVariant c = s->property("attnplanColour"); c.isValid()) {
                points->setColor(c.value<QColor>());
                points->setBorderColor(c.value<QColor>().darker(140));
                continue;
            }
        if (isMarker(s))
            continue;
        if (auto* line = qobject_cast<QLineSeries*>(s)) {
            QPen pen = line->pen();
            pen.setColor(kColours[i++ % std::size(kColours)]);
            pen.setWidthF(2.0);
            // A series that can coincide with another is dashed so that both stay visible.
            // A chart of many near curves names a style per series (attnplanPenStyle).
            const QVariant style = line->property("attnplanPenStyle");
            pen.setStyle(style.isValid()                             ? Qt::PenStyle(style.toInt())
                         : line->property("attnplanDashed").toBool() ? Qt::DashLine
                                                                     : Qt::SolidLine);
            line->setPen(pen);
        } else if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
            int j = 0;
            for (QBarSet* set : bars->barSets()) {
                set->setColor(kColours[j++ % std::size(kColours)]);
                set->setBorderColor(set->color());
            }
        }
    }
}

QChartView* lineChart(TableModel* model, int xColumn, const QList<int>& yColumns, bool logX,
                      bool logY, const QString& title, const QString& xTitle, const QString& yTitle)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    const Unit xUnit = model->columns().value(xColumn).unit;
    const Unit yUnit = model->columns().value(yColumns.value(0)).unit;
    QAbstractAxis* ax = makeAxis(logX, xUnit, xTitle);
    QAbstractAxis* ay = makeAxis(logY, yUnit, yTitle);
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);
    QList<int> logColumns;
    if (logX)
        logColumns << xColumn;
    if (logY)
        logColumns << yColumns;
    auto* source = new LogColumns(logColumns, chart);
    source->setSourceModel(model);
    // Each series reads its column through a mapper. A reset may bring fewer columns
    // (another model's shapes, before the chart's owner rebuilds it), which a mapper meets with a
    // warning: the mappers go before a reset and come back after it for the columns still
    // there; a series whose column went is emptied.
    QList<QPair<QLineSeries*, int>> lines;
    auto map = [source, xColumn](QLineSeries* series, int col) {
        auto* mapper = new QVXYModelMapper(series);
        mapper->setXColumn(xColumn);
        mapper->setYColumn(col);
        mapper->setSeries(series);
        mapper->setModel(source);
    };
    for (int col : yColumns) {
        auto* series = new QLineSeries(chart);
        series->setName(model->headerData(col, Qt::Horizontal, Qt::DisplayRole).toString());
        map(series, col);
        lines << qMakePair(series, col);
        chart->addSeries(series);
        series->attachAxis(ax);
        series->attachAxis(ay);
    }
    QObject::connect(model, &QAbstractItemModel::modelAboutToBeReset, chart, [lines] {
        for (const auto& [series, col] : lines)
            delete series->findChild<QVXYModelMapper*>();
    });
    QObject::connect(model, &QAbstractItemModel::modelReset, chart,
                     [chart, lines, model, map, xColumn] {
                         for (const auto& [series, col] : lines) {
                             if (xColumn < model->columnCount() && col < model->columnCount())
                                 map(series, col);
                             else
                                 series->clear();
                         }
                         fitAxes(chart);
                     });
    fitAxes(chart);
    return viewFor(chart);
}

namespace {

// Feeds a bar series from model columns first..last through a QVBarModelMapper, naming each
// bar set after its column as the mapper (re)creates the sets.
void mapBars(QChart* chart, QAbstractBarSeries* series, TableModel* model, int first, int last)
{
    auto* mapper = new QVBarModelMapper(series);
    mapper->setFirstBarSetColumn(first);
    mapper->setLastBarSetColumn(last);
    mapper->setSeries(series);
    mapper->setModel(model);
    auto name = [chart, series, model, first] {
        const auto sets = series->barSets();
        for (int i = 0; i < sets.size(); ++i)
            sets[i]->setLabel(
                model->headerData(first + i, Qt::Horizontal, Qt::DisplayRole).toString());
        applyColours(chart);
    };
    // Connected after the series joined its chart: the chart's theme colours new sets in its
    // own handler, and ours must run after it.
    QObject::connect(series, &QAbstractBarSeries::barsetsAdded, series, name);
    name();
}

// A bar chart's skeleton: the series, a category axis and a value axis; categories follow
// labelColumn (or stay fixed when labelColumn < 0) and the value axis refits on every reset.
QChart* barChartBase(QAbstractBarSeries* series, TableModel* model, int first, int last,
                     int labelColumn, bool horizontal, bool logValues, const QString& title,
                     const QString& valueTitle, const QStringList& fixedCategories = {},
                     std::optional<Unit> valueUnit = {})
{
    auto* chart = new QChart;
    chart->setTitle(title);
    series->setParent(chart);
    chart->addSeries(series);
    if (first >= 0)
        mapBars(chart, series, model, first, last);
    auto* cats = new QBarCategoryAxis;
    cats->append(fixedCategories);
    chart->addAxis(cats, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
    series->attachAxis(cats);
    // Bars grow from zero: a log value axis keeps Qt's own (its values are all positive).
    QAbstractAxis* values;
    if (logValues) {
        auto* la = new QLogValueAxis;
        la->setLabelFormat(QStringLiteral("%g"));
        la->setMinorTickCount(-1);
        la->setTitleText(valueTitle);
        values = la;
    } else {
        values =
            makeAxis(false, valueUnit.value_or(model->columns().value(first).unit), valueTitle);
    }
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

namespace {

// The marker lines (the GPU's memory, what the engine plans within) after the bar's parts in
// the legend, whatever the order they were made in: the parts are made again on each reset and
// Qt appends their legend entries, which put the lines first after a model change (an
// eighteenth review's P3). Each line is taken out and added back with its axes.
void markersLast(QChart* chart)
{
    for (QAbstractSeries* s : chart->series()) {
        if (!isMarker(s))
            continue;
        const QList<QAbstractAxis*> axes = s->attachedAxes();
        chart->removeSeries(s);
        chart->addSeries(s);
        for (QAbstractAxis* a : axes)
            s->attachAxis(a);
    }
}

// A stacked bar's value label only where the segment is tall enough to hold it: again after a
// theme, which sets every label's colour (the dark palette piled the thin segments' labels into
// a blob: a fifteenth review's P3).
void labelTallSegments(QStackedBarSeries* series)
{
    double total = 0;
    for (QBarSet* set : series->barSets())
        total += set->count() ? set->at(0) : 0;
    for (QBarSet* set : series->barSets())
        set->setLabelColor(set->count() && set->at(0) > 0.08 * total ? QColor(Qt::white)
                                                                     : QColor(Qt::transparent));
}

} // namespace

QChartView* stackedBar(TableModel* model, const QString& title, const QString& valueTitle,
                       Unit unit)
{
    auto* series = new QStackedBarSeries;
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(3);
    // No mapper: the columns change with each reset (one engine's parts, then another's), and
    // the bar is made again from them.
    QChart* chart = barChartBase(series, model, -1, -1, -1, false, false, title, valueTitle,
                                 {QObject::tr("one GPU")}, unit);
    auto fill = [chart, series, model] {
        series->clear();
        for (int c = 0; c < model->columnCount(); ++c) {
            auto* set = new QBarSet(model->columns().value(c).title);
            if (model->rowCount() > 0)
                set->append(model->number(0, c));
            series->append(set);
        }
        markersLast(chart);
        applyColours(chart);
        fitAxes(chart);
    };
    QObject::connect(model, &QAbstractItemModel::modelReset, series, fill);
    fill();
    QChartView* view = viewFor(chart);
    chart->legend()->setAlignment(Qt::AlignRight);
    QObject::connect(model, &QAbstractItemModel::modelReset, series,
                     [series] { labelTallSegments(series); });
    labelTallSegments(series);
    return view;
}

QChartView* barChart(TableModel* model, int labelColumn, int valueColumn, const QString& title,
                     const QString& valueTitle, bool logValues, const QString& labelFormat)
{
    auto* series = new QHorizontalBarSeries;
    if (!labelFormat.isEmpty()) {
        series->setLabelsVisible(true);
        series->setLabelsFormat(labelFormat);
        series->setLabelsPrecision(12);
        series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    }
    QChart* chart = barChartBase(series, model, valueColumn, valueColumn, labelColumn, true,
                                 logValues, title, valueTitle);
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
    const double inf = std::numeric_limits<double>::infinity();
    double xlo = inf, xhi = -inf, ylo = inf, yhi = -inf;
    bool bars = false;
    QAbstractAxis* ax = chart->axes(Qt::Horizontal).value(0);
    QAbstractAxis* ay = chart->axes(Qt::Vertical).value(0);
    // Back from the axis' coordinates to real units.
    auto real = [](const QAbstractAxis* a, double v) { return isLog(a) ? std::pow(10.0, v) : v; };
    for (QAbstractSeries* s : chart->series()) {
        if (isMarker(s))
            continue;
        if (auto* xy = qobject_cast<QXYSeries*>(s)) {
            for (const QPointF& p : xy->points()) {
                if (p.x() > kOffChart / 2 && std::isfinite(p.x()))
                    xlo = std::min(xlo, real(ax, p.x())), xhi = std::max(xhi, real(ax, p.x()));
                if (p.y() > kOffChart / 2 && std::isfinite(p.y()))
                    ylo = std::min(ylo, real(ay, p.y())), yhi = std::max(yhi, real(ay, p.y()));
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
    const double capacity = chart->property("attnplanCapacity").toDouble();
    if (capacity > 0)
        yhi = std::max(yhi, capacity);
    if (bars) {
        // Room for the value labels beyond the longest bar.
        for (QAbstractSeries* s : chart->series())
            if (auto* bs = qobject_cast<QAbstractBarSeries*>(s);
                bs && bs->isLabelsVisible() &&
                bs->labelsPosition() == QAbstractBarSeries::LabelsOutsideEnd)
                yhi *= 1.3;
        const bool horizontal = !chart->series().isEmpty() &&
                                qobject_cast<QHorizontalBarSeries*>(chart->series().first());
        for (QAbstractAxis* a : chart->axes(horizontal ? Qt::Horizontal : Qt::Vertical))
            if (!qobject_cast<QBarCategoryAxis*>(a))
                // A log axis starts a decade below the shortest bar's, so that it shows.
                fit(a, qobject_cast<QLogValueAxis*>(a) ? ylo / 2 : ylo, yhi);
    } else {
        // Points drawn as markers keep their whole marker inside the plot: a margin of about a
        // fortieth of the span (a fourth review found the Plans chart's top points cut in half);
        // a log axis then takes the next decade only for a point that close to its edge.
        const QList<QAbstractSeries*> all = chart->series();
        const bool scattered = std::any_of(all.begin(), all.end(), [](QAbstractSeries* s) {
            return !isMarker(s) && qobject_cast<QScatterSeries*>(s) != nullptr;
        });
        auto pad = [](const QAbstractAxis* a, double& lo, double& hi) {
            if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
                return;
            if (isLog(a) && lo > 0) {
                const double f = std::pow(std::max(hi / lo, 2.0), 0.012);
                lo /= f, hi *= f;
            } else {
                const double span = hi > lo ? hi - lo : std::max(std::abs(hi), 1e-12);
                lo = lo >= 0 ? std::max(0.0, lo - span / 40) : lo - span / 40;
                hi += span / 40;
            }
        };
        if (scattered) {
            pad(ax, xlo, xhi);
            pad(ay, ylo, yhi);
        }
        for (QAbstractAxis* a : chart->axes(Qt::Horizontal))
            fit(a, xlo, xhi);
        for (QAbstractAxis* a : chart->axes(Qt::Vertical))
            fit(a, ylo, yhi);
    }
    // Markers span the value axis as fitted.
    for (QAbstractSeries* s : chart->series()) {
        auto* line = qobject_cast<QLineSeries*>(s);
        if (!line || !isMarker(s))
            continue;
        const double at = s->property("attnplanAt").toDouble();
        const bool vertical = s->property("attnplanVertical").toBool();
        const auto* valueAxis = qobject_cast<QValueAxis*>(vertical ? ay : ax);
        const auto* along = qobject_cast<QValueAxis*>(vertical ? ax : ay);
        if (!valueAxis || !along)
            continue;
        const double pos = isLog(along) ? std::log10(std::max(at, 1e-300)) : at;
        if (vertical)
            line->replace({QPointF(pos, valueAxis->min()), QPointF(pos, valueAxis->max())});
        else
            line->replace({QPointF(valueAxis->min(), pos), QPointF(valueAxis->max(), pos)});
    }
}

QPointF toChart(QChart* chart, QPointF real)
{
    const QAbstractAxis* ax = chart->axes(Qt::Horizontal).value(0);
    const QAbstractAxis* ay = chart->axes(Qt::Vertical).value(0);
    auto pos = [](const QAbstractAxis* a, double v) {
        return isLog(a) ? (v > 0 ? std::log10(v) : kOffChart) : v;
    };
    return {pos(ax, real.x()), pos(ay, real.y())};
}

void setMarker(QChartView* view, double at, const QString& name, bool vertical)
{
    QChart* chart = view->chart();
    QLineSeries* line = nullptr;
    for (QAbstractSeries* s : chart->series())
        if (isMarker(s) && s->property("attnplanVertical").toBool() == vertical)
            line = qobject_cast<QLineSeries*>(s);
    if (!line) {
        line = new QLineSeries(chart);
        line->setProperty("attnplanMarker", true);
        line->setProperty("attnplanVertical", vertical);
        QPen pen(kMarker);
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        line->setPen(pen);
        chart->addSeries(line);
        for (QAbstractAxis* a : chart->axes())
            if (qobject_cast<QValueAxis*>(a))
                line->attachAxis(a);
    }
    line->setName(name);
    line->setProperty("attnplanAt", at);
    fitAxes(chart);
}

void clearMarker(QChartView* view, bool vertical)
{
    QChart* chart = view->chart();
    for (QAbstractSeries* s : chart->series())
        if (isMarker(s) && s->property("attnplanVertical").toBool() == vertical) {
            chart->removeSeries(s);
            s->deleteLater();
        }
}

void setCapacity(QChartView* view, double capacity, const QString& name, bool budget)
{
    QChart* chart = view->chart();
    if (!budget)
        chart->setProperty("attnplanCapacity", capacity);
    // A horizontal line across the single bar: on a hidden x axis of its own.
    QLineSeries* line = nullptr;
    for (QAbstractSeries* s : chart->series())
        if (isMarker(s) && s->property("attnplanBudget").toBool() == budget)
            line = qobject_cast<QLineSeries*>(s);
    if (budget && capacity <= 0) {
        // An engine with no limit of its own below the GPU's (llama-server): no dotted line.
        if (line) {
            const QList<QAbstractAxis*> axes = line->attachedAxes();
            chart->removeSeries(line);
            delete line;
            for (QAbstractAxis* a : axes)
                if (a->property("attnplanHidden").toBool()) {
                    chart->removeAxis(a);
                    delete a;
                }
        }
        fitAxes(chart);
        return;
    }
    if (!line) {
        line = new QLineSeries(chart);
        line->setProperty("attnplanMarker", true);
        line->setProperty("attnplanBudget", budget);
        QPen pen(kMarker);
        pen.setStyle(budget ? Qt::DotLine : Qt::DashLine);
        pen.setWidthF(2);
        line->setPen(pen);
        chart->addSeries(line);
        auto* hidden = new QValueAxis;
        hidden->setRange(0, 1);
        hidden->setVisible(false);
        hidden->setProperty("attnplanHidden", true);
        chart->addAxis(hidden, Qt::AlignTop);
        line->attachAxis(hidden);
        for (QAbstractAxis* a : chart->axes(Qt::Vertical))
            line->attachAxis(a);
    }
    line->setName(name);
    line->replace({QPointF(0, capacity), QPointF(1, capacity)});
    fitAxes(chart);
}

void setEmptyText(QChartView* view, const QString& reason)
{
    auto* label = view->findChild<QLabel*>(QStringLiteral("emptyState"));
    const bool empty = !reason.isEmpty();
    label->setText(reason);
    label->setVisible(empty);
    QChart* chart = view->chart();
    for (QAbstractSeries* s : chart->series())
        s->setVisible(!empty);
    for (QAbstractAxis* a : chart->axes())
        if (!a->property("attnplanHidden").toBool())
            a->setVisible(!empty);
    chart->legend()->setVisible(!empty && chart->property("attnplanLegend").toBool());
}

void applyTheme(QChart* chart, bool dark)
{
    const bool legend = chart->legend()->isVisible();
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    chart->legend()->setVisible(legend);
    applyColours(chart);
    for (QAbstractSeries* s : chart->series())
        if (auto* stacked = qobject_cast<QStackedBarSeries*>(s))
            labelTallSegments(stacked);
    for (QAbstractSeries* s : chart->series())
        if (isMarker(s))
            if (auto* line = qobject_cast<QLineSeries*>(s)) {
                QPen pen = line->pen();
                pen.setColor(kMarker);
                pen.setStyle(s->property("attnplanBudget").toBool() ? Qt::DotLine : Qt::DashLine);
                line->setPen(pen);
            }
}

} // namespace Charts
