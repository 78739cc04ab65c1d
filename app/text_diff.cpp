#include "text_diff.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <vector>

namespace {
QString mark(const QString& w, bool changed) {
    const QString e = w.toHtmlEscaped();
    return changed ? QStringLiteral("<span style=\"background-color:#7a2f3b;color:#ffffff\">%1</span>").arg(e) : e;
}
}  // namespace

TextDiff diffWords(const QString& left, const QString& right) {
    static const QRegularExpression ws(QStringLiteral("\\s+"));
    const QStringList a = left.split(ws, Qt::SkipEmptyParts), b = right.split(ws, Qt::SkipEmptyParts);
    const size_t n = size_t(a.size()), m = size_t(b.size());
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            lcs[i][j] = a[qsizetype(i)] == b[qsizetype(j)] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    TextDiff d;
    QStringList l, r;
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[qsizetype(i)] == b[qsizetype(j)]) {
            l << mark(a[qsizetype(i++)], false);
            r << mark(b[qsizetype(j++)], false);
        } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
            r << mark(b[qsizetype(j++)], true);
            ++d.changedWords;
        } else {
            l << mark(a[qsizetype(i++)], true);
            ++d.changedWords;
        }
    }
    d.leftHtml = l.join(' ');
    d.rightHtml = r.join(' ');
    d.identical = d.changedWords == 0;
    return d;
}
