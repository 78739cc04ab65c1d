#include "text_diff.h"

#include <QRegularExpression>
#include <algorithm>
#include <vector>

namespace {
QString mark(const QString& w, bool changed) {
    const QString e = w.toHtmlEscaped();
    return changed ? QStringLiteral("<span style=\"background-color:#7a2f3b;color:#ffffff\">%1</span>").arg(e) : e;
}
}  // namespace

TextDiff diffWords(const QString& left, const QString& right) {
    // Words with whether a line break precedes them: the answers are multi-line (a word problem's
    // working), and the diff keeps their lines.
    struct Word {
        QString text;
        bool newLine = false;
    };
    static const QRegularExpression wordRe(QStringLiteral("\\S+"));
    auto words = [](const QString& t) {
        std::vector<Word> out;
        qsizetype end = 0;
        for (auto it = wordRe.globalMatch(t); it.hasNext();) {
            const auto m = it.next();
            out.push_back({m.captured(), !out.empty() && t.mid(end, m.capturedStart() - end).contains('\n')});
            end = m.capturedEnd();
        }
        return out;
    };
    const std::vector<Word> a = words(left), b = words(right);
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            lcs[i][j] = a[i].text == b[j].text ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    TextDiff d;
    auto put = [](QString& html, const Word& w, bool changed) {
        if (!html.isEmpty()) html += w.newLine ? QStringLiteral("<br>") : QStringLiteral(" ");
        html += mark(w.text, changed);
    };
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i].text == b[j].text) {
            put(d.leftHtml, a[i++], false);
            put(d.rightHtml, b[j++], false);
        } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
            put(d.rightHtml, b[j++], true);
            ++d.changedWords;
        } else {
            put(d.leftHtml, a[i++], true);
            ++d.changedWords;
        }
    }
    d.identical = d.changedWords == 0;
    return d;
}
