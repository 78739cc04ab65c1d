#include "eval/eval_example.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/json_document.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm {

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
    // A number is refused too: 1e2 or 12.50 would compare as their printed form, not as written.
    if (it->is_string()) return it->get<std::string>();
    throw Error(where + ": \"" + name + "\" must be a string" + (it->is_number() ? " (write the number in quotes)" : ""));
}

}  // namespace

std::vector<EvalExample> parse_eval_jsonl(const std::string& text, const std::string& source) {
    std::istringstream in(text);
    std::vector<EvalExample> out;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (trim(line).empty()) continue;
        const std::string where = source + ":" + std::to_string(number);
        const nlohmann::json j = parse_json_document(line, where);
        if (!j.is_object()) throw Error(where + ": expected a JSON object");
        EvalExample ex{field(j, "family", where), field(j, "prompt", where), field(j, "answer", where), number};
        if (j.contains("gen_length")) {
            const auto& g = j["gen_length"];
            if (!g.is_number_integer() || g.get<long long>() < 1 || g.get<long long>() > 1'000'000)
                throw Error(where + ": \"gen_length\" must be a positive integer");
            ex.gen_length = g.get<int>();
        }
        if (j.contains("title")) ex.title = field(j, "title", where);
        out.push_back(std::move(ex));
    }
    if (out.empty()) throw Error("evaluation data '" + source + "' has no examples");
    return out;
}

std::vector<EvalExample> read_eval_jsonl(const std::filesystem::path& file) {
    return parse_eval_jsonl(read_text_file(file, limits::kEvalFileBytes, "evaluation data"), file.string());
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

}  // namespace dlm
