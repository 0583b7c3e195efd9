// MainWindow's exports: a chart of the current tab as PNG or SVG, and a table as
// tab-separated text on the clipboard (the numbers as shown).
#include "Folders.h"
#include "MainWindow.h"

#include "AppSession.h"
#include "TableModel.h"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QFileDialog>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPainter>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>

void MainWindow::exportChart(bool svg)
{
    // The charts of the current tab; ask which when there are several.
    QList<QChartView*> views;
    for (QChartView* v : charts())
        if (m_tabs->currentWidget()->isAncestorOf(v))
            views << v;
    if (views.isEmpty())
        return;
    QChartView* view = views.first();
    if (views.size() > 1) {
        QStringList titles;
        for (QChartView* v : views)
            titles << v->chart()->title();
        bool ok = false;
        const QString pick =
            QInputDialog::getItem(this, tr("Save chart"), tr("Chart"), titles, 0, false, &ok);
        if (!ok)
            return;
        view = views[titles.indexOf(pick)];
    }
    const QString path = Folders::remember(
        "exports",
        QFileDialog::getSaveFileName(
            this, tr("Save chart"),
            Folders::suggest("exports", view->chart()->title().left(40) + (svg ? ".svg" : ".png")),
            svg ? tr("SVG (*.svg)") : tr("PNG (*.png)")));
    if (path.isEmpty())
        return;
    QByteArray bytes;
    if (svg) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(view->size());
        gen.setViewBox(view->rect());
        gen.setTitle(view->chart()->title());
        QPainter painter(&gen);
        view->render(&painter);
    } else {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        view->grab().save(&buffer, "PNG");
    }
    QString error;
    if (!AppSession::writeAtomically(path, bytes, &error))
        QMessageBox::warning(this, tr("Save failed"), error);
}

void MainWindow::copyTable()
{
    auto* view = qobject_cast<QTableView*>(QApplication::focusWidget());
    if (!view || !view->model())
        return;
    // The selection, or the whole table, as tab-separated text with the formatted numbers.
    const QAbstractItemModel* m = view->model();
    QModelIndexList sel =
        view->selectionModel() ? view->selectionModel()->selectedIndexes() : QModelIndexList{};
    int r0 = 0, r1 = m->rowCount() - 1, c0 = 0, c1 = m->columnCount() - 1;
    if (!sel.isEmpty()) {
        r0 = r1 = sel.first().row();
        c0 = c1 = sel.first().column();
        for (const QModelIndex& i : sel) {
            r0 = std::min(r0, i.row()), r1 = std::max(r1, i.row());
            c0 = std::min(c0, i.column()), c1 = std::max(c1, i.column());
        }
    }
    QStringList lines, head;
    for (int c = c0; c <= c1; ++c)
        head << m->headerData(c, Qt::Horizontal).toString();
    lines << head.join('\t');
    for (int r = r0; r <= r1; ++r) {
        QStringList cells;
        for (int c = c0; c <= c1; ++c) {
            const QModelIndex i = m->index(r, c);
            const QVariant f = i.data(TableModel::FormattedRole);
            cells << (f.isValid() ? f.toString() : i.data().toString());
        }
        lines << cells.join('\t');
    }
    QApplication::clipboard()->setText(lines.join('\n') + '\n');
    statusBar()->showMessage(tr("Copied %1 row(s)").arg(r1 - r0 + 1), 3000);
}
