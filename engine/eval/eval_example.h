#pragma once
// An evaluation example ({"family", "prompt", "answer"[, "gen_length", "title"]} per jsonl line: the
// eval splits, the app's worked examples) and the answer rule shared by every model and front
// end: the answer is the text after the LAST "####".
#include <filesystem>
#include <string>
#include <vector>

namespace dlm {

struct EvalExample {
    std::string family;
    std::string prompt;
    std::string answer;
    int line = 0;        // 1-based line in the file, for reports
    int gen_length = 0;  // the canvas the example needs ("gen_length" in the file); 0 = not given
    std::string title;   // how a picker names it ("title" in the file, e.g. "4-digit addition"); "" = not given
};

// Throws dlm::Error naming the file and line for unreadable files, malformed JSON, or a line
// without string "family" / "prompt" / "answer" (a numeric answer is accepted as its text).
std::vector<EvalExample> read_eval_jsonl(const std::filesystem::path& file);
// The same from text already read (`source` names it in errors), e.g. a file embedded in the app.
std::vector<EvalExample> parse_eval_jsonl(const std::string& text, const std::string& source);

// The text after the last "####", first line only, trimmed. Empty when there is no "####".
std::string extract_answer(const std::string& output);
// Both sides trimmed, then compared exactly.
bool answer_matches(const std::string& predicted, const std::string& expected);

}  // namespace dlm
