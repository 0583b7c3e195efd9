#pragma once

// The tab-separated fixtures of tests/data (vllm-logs/cases.tsv, published_parameters.tsv,
// bad/MANIFEST.tsv): one row per line, blank lines and # comments skipped.

#include <QFile>
#include <QList>
#include <QStringList>

// Empty when the file cannot be read; callers assert a minimum row count.
inline QList<QStringList> tsvRows(const QString& path)
{
    QList<QStringList> rows;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        return rows;
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (!line.isEmpty() && !line.startsWith('#'))
            rows << line.split('\t');
    }
    return rows;
}
