#pragma once
// Where the CLI finds an evaluation split and how it samples one; the example format and the
// answer rule are the engine's (eval/eval_example.h).
#include <filesystem>
#include <string>
#include <vector>

#include "eval/eval_example.h"

namespace dlm::cli {

// Where `<split>.jsonl` is looked for: <model>/../../eval/ (models live in resources/models/),
// ./resources/eval/, then the source tree's resources/eval/. The first that exists wins; the
// error lists every place tried.
std::filesystem::path find_eval_split(const std::string& split, const std::filesystem::path& model_dir);

// Up to `limit` examples taken round-robin over the families in file order, so a small limit
// still covers every family (the files are grouped by family). limit <= 0: all.
std::vector<EvalExample> take_balanced(const std::vector<EvalExample>& all, long long limit);

}  // namespace dlm::cli
