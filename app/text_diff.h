#pragma once
// Word-level difference of two answers for compare mode: each side as rich text with the words
// the other side lacks highlighted (longest common subsequence over whitespace-separated words),
// each line of the answer kept as a line.
#include <QString>

struct TextDiff {
    QString leftHtml, rightHtml;
    int changedWords = 0;
    bool identical = false;
};

TextDiff diffWords(const QString& left, const QString& right);
