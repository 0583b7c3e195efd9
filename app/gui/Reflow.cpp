#include "Reflow.h"

#include <QEvent>
#include <QWidget>

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
    if (watched == m_tab->parentWidget() && event->type() == QEvent::Resize)
        check();
    return QObject::eventFilter(watched, event);
}

void Reflow::check()
{
    const int narrow = m_tab->parentWidget()->width() < m_threshold ? 1 : 0;
    if (narrow != m_state) {
        m_state = narrow;
        m_apply(narrow == 1);
    }
}
