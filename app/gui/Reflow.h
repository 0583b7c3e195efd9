#pragma once

#include <QObject>

#include <functional>

class QWidget;

// A tab whose columns go under each other on a small screen: `apply(narrow)` is called whenever
// the room the tab has (the width of whatever holds it, a scroll area's viewport; not the tab's
// own, which never shrinks below its minimum) crosses `threshold`; tabs are built wide.
class Reflow : public QObject
{
    Q_OBJECT

public:
    Reflow(QWidget* tab, int threshold, std::function<void(bool narrow)> apply);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void check();

    QWidget* m_tab;
    int m_threshold;
    std::function<void(bool)> m_apply;
    int m_state = 0; // 0 wide (as the tab is built), 1 narrow
    bool m_pending = false;
};
