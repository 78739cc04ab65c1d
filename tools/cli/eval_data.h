#pragma once
// Evaluation examples (resources/eval/<split>.jsonl: {"family", "prompt", "answer"} per line)
// and the answer extraction rule shared by every model: the text after the LAST "####".
#include <filesystem>
#include <string>
#include <vector>

namespace dlm::cli {

struct EvalExample {
    std::string family;
    std::string prompt;
    std::string answer;
    int line = 0;  // 1-based line in the file, for reports
    int gen_length = 0;  // the canvas the example needs ("gen_length" in the file); 0 = not given
};

// Throws dlm::Error naming the file and line for unreadable files, malformed JSON, or a line
// without string "family" / "prompt" / "answer" (a numeric answer is accepted as its text).
std::vector<EvalExample> read_eval_jsonl(const std::filesystem::path& file);

// Where `<split>.jsonl` is looked for: <model>/../../eval/ (models live in resources/models/),
// ./resources/eval/, then the source tree's resources/eval/. The first that exists wins; the
// error lists every place tried.
std::filesystem::path find_eval_split(const std::string& split, const std::filesystem::path& model_dir);

// Up to `limit` examples taken round-robin over the families in file order, so a small limit
// still covers every family (the files are grouped by family). limit <= 0: all.
std::vector<EvalExample> take_balanced(const std::vector<EvalExample>& all, long long limit);

// The text after the last "####", first line only, trimmed. Empty when there is no "####".
std::string extract_answer(const std::string& output);
// Both sides trimmed, then compared exactly.
bool answer_matches(const std::string& predicted, const std::string& expected);

}  // namespace dlm::cli
