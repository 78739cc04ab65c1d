#include "eval_data.h"

#include <map>

#include "util/error.h"

namespace dlm::cli {

std::filesystem::path find_eval_split(const std::string& split, const std::filesystem::path& model_dir) {
    const std::string name = split + ".jsonl";
    std::vector<std::filesystem::path> candidates = {
        model_dir / ".." / ".." / "eval" / name,
        std::filesystem::path("resources") / "eval" / name,
    };
#ifdef DLM_SOURCE_DIR
    candidates.push_back(std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "eval" / name);
#endif
    std::string tried;
    for (const auto& c : candidates) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(c, ec)) return c.lexically_normal();
        tried += (tried.empty() ? "" : ", ") + c.lexically_normal().string();
    }
    throw Error("no evaluation split '" + split + "' found (looked for " + tried + "); point --data at a jsonl file");
}

std::vector<EvalExample> take_balanced(const std::vector<EvalExample>& all, long long limit) {
    if (limit <= 0 || limit >= static_cast<long long>(all.size())) return all;
    std::vector<std::string> order;
    std::map<std::string, std::vector<const EvalExample*>> by_family;
    for (const auto& e : all) {
        auto& bucket = by_family[e.family];
        if (bucket.empty()) order.push_back(e.family);
        bucket.push_back(&e);
    }
    std::vector<EvalExample> out;
    for (std::size_t round = 0; static_cast<long long>(out.size()) < limit; ++round)
        for (const auto& fam : order) {
            const auto& bucket = by_family[fam];
            if (round < bucket.size() && static_cast<long long>(out.size()) < limit) out.push_back(*bucket[round]);
        }
    return out;
}

}  // namespace dlm::cli
