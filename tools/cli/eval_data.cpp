#include "eval_data.h"

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace dlm::cli {

namespace {

std::string trim(const std::string& s) {
    const char* ws = " \t\r\n\v\f";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

std::string field(const nlohmann::json& j, const char* name, const std::string& where) {
    auto it = j.find(name);
    if (it == j.end()) throw Error(where + ": missing \"" + name + "\"");
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number()) return it->dump();
    throw Error(where + ": \"" + name + "\" must be a string");
}

}  // namespace

std::vector<EvalExample> read_eval_jsonl(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw Error("cannot read evaluation data '" + file.string() + "'");
    std::vector<EvalExample> out;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (trim(line).empty()) continue;
        const std::string where = file.string() + ":" + std::to_string(number);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::parse_error& e) {
            throw Error(where + ": not valid JSON (" + std::string(e.what()) + ")");
        }
        if (!j.is_object()) throw Error(where + ": expected a JSON object");
        EvalExample ex{field(j, "family", where), field(j, "prompt", where), field(j, "answer", where), number};
        if (j.contains("gen_length")) {
            const auto& g = j["gen_length"];
            if (!g.is_number_integer() || g.get<long long>() < 1 || g.get<long long>() > 1'000'000)
                throw Error(where + ": \"gen_length\" must be a positive integer");
            ex.gen_length = g.get<int>();
        }
        out.push_back(std::move(ex));
    }
    if (out.empty()) throw Error("evaluation data '" + file.string() + "' has no examples");
    return out;
}

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

std::string extract_answer(const std::string& output) {
    const auto pos = output.rfind("####");
    if (pos == std::string::npos) return "";
    std::string rest = trim(output.substr(pos + 4));
    if (const auto nl = rest.find('\n'); nl != std::string::npos) rest = rest.substr(0, nl);
    return trim(rest);
}

bool answer_matches(const std::string& predicted, const std::string& expected) {
    return !trim(predicted).empty() && trim(predicted) == trim(expected);
}

}  // namespace dlm::cli
