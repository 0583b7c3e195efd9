#pragma once

// What the model suites share: paths into the source tree, a model read or the test fails,
// and a file written for a case.

#include "read/ModelSource.h"

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTest>

namespace attnplan::testing {

// A path in the source tree (ATTNPLAN_SOURCE_DIR).
inline QString src(const QString& rel)
{
    return QStringLiteral(ATTNPLAN_SOURCE_DIR "/") + rel;
}

// The model at a source-tree path or bundled name; a case that cannot read it stops the suite.
inline ModelSpec load(const QString& rel)
{
    auto m = readModel(QFile::exists(src(rel)) ? src(rel).toStdString() : rel.toStdString());
    if (!m)
        qFatal("%s", m.error().c_str());
    return m.value();
}

// The text of a file of the source tree (a real log of ../shared), or a null string where it
// is not there (a user's clone has no ../shared): the caller skips, saying so.
inline QString sharedText(const QString& rel)
{
    QFile f(src(rel));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

inline void writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

} // namespace attnplan::testing
