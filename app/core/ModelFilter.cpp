#include "ModelFilter.h"

#include "ModelLibrary.h"

#include <QRegularExpression>

ModelFilter::ModelFilter(QObject* parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
}

double ModelFilter::parseCount(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]+(?:\\.[0-9]+)?)([kmbt])$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return 0;
    const QChar unit = m.captured(2).toLower().at(0);
    const double scale = unit == 'k' ? 1e3 : unit == 'm' ? 1e6 : unit == 'b' ? 1e9 : 1e12;
    return m.captured(1).toDouble() * scale;
}

void ModelFilter::setQuery(const QString& query)
{
    m_query = query;
    m_words.clear();
    m_min = m_max = 0;
    for (const QString& word : query.toLower().split(' ', Qt::SkipEmptyParts)) {
        if (word.startsWith(QLatin1String(">=")) && parseCount(word.mid(2)) > 0)
            m_min = parseCount(word.mid(2));
        else if (word.startsWith('>') && parseCount(word.mid(1)) > 0)
            m_min = parseCount(word.mid(1)) * (1 + 1e-9);
        else if (word.startsWith(QLatin1String("<=")) && parseCount(word.mid(2)) > 0)
            m_max = parseCount(word.mid(2));
        else if (word.startsWith('<') && parseCount(word.mid(1)) > 0)
            m_max = parseCount(word.mid(1)) * (1 - 1e-9);
        else if (const int dash = word.indexOf('-'); dash > 0 && parseCount(word.left(dash)) > 0 &&
                                                     parseCount(word.mid(dash + 1)) > 0) {
            m_min = parseCount(word.left(dash));
            m_max = parseCount(word.mid(dash + 1));
        } else
            m_words << word;
    }
    invalidateFilter();
}

bool ModelFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    const QString source = index.data(ModelLibrary::SourceRole).toString();
    if (source.isEmpty()) // a group: shown while a model under it is (recursive filtering)
        return m_words.isEmpty() && m_min == 0 && m_max == 0;
    const QString search = index.data(ModelLibrary::SearchRole).toString();
    for (const QString& w : m_words)
        if (!search.contains(w))
            return false;
    if (m_min > 0 || m_max > 0) {
        const double p = index.data(ModelLibrary::ParametersRole).toDouble();
        if (p <= 0 || p < m_min || (m_max > 0 && p > m_max))
            return false;
    }
    return true;
}
