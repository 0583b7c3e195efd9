#include "Reflow.h"

#include <QEvent>
#include <QLayout>
#include <QScrollArea>
#include <QTimer>
#include <QWidget>

#include <algorithm>

Reflow::Reflow(QWidget* tab, int threshold, std::function<void(bool)> apply)
    : QObject(tab), m_tab(tab), m_threshold(threshold), m_apply(std::move(apply))
{
    tab->installEventFilter(this);
    if (QWidget* holder = tab->parentWidget())
        holder->installEventFilter(this);
}

bool Reflow::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_tab && event->type() == QEvent::ParentChange && m_tab->parentWidget())
        m_tab->parentWidget()->installEventFilter(this);
    if (watched == m_tab->parentWidget() && event->type() == QEvent::Resize && !m_pending) {
        // Decided once the resizes settle: a window being laid out passes through small sizes
        // on its way to its own, and a tab stacked for one of them keeps its height.
        m_pending = true;
        QTimer::singleShot(100, this, &Reflow::check);
    }
    return QObject::eventFilter(watched, event);
}

void Reflow::check()
{
    m_pending = false;
    QWidget* holder = m_tab->parentWidget();
    if (!holder)
        return;
    const int narrow = holder->width() < m_threshold ? 1 : 0;
    if (narrow == m_state)
        return;
    m_state = narrow;
    m_apply(narrow == 1);
    // A scroll area that holds the tab grows it to a taller layout but never shrinks it back
    // on its own: fit its page to the viewport again, at the height the new layout needs.
    for (QWidget* w = holder; w; w = w->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(w)) {
            QWidget* page = area->widget();
            QLayout* layout = page ? page->layout() : nullptr;
            if (!layout)
                return;
            layout->activate();
            const QSize room = area->viewport()->size();
            const int width = std::max(room.width(), layout->totalMinimumSize().width());
            const int height = layout->hasHeightForWidth() ? layout->totalHeightForWidth(width)
                                                           : layout->totalMinimumSize().height();
            page->resize(width, std::max(room.height(), height));
            return;
        }
}
