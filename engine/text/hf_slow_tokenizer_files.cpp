// The "slow" byte-level BPE files transformers' GPT2Tokenizer, Qwen2Tokenizer and Dream's
// DreamTokenizer read (vocab.json + merges.txt, added tokens in tokenizer_config.json or
// added_tokens.json), turned into the tokenizer.json document the fast tokenizer of the same
// vocabulary has. One parser and one validator then serve both forms, so both give the same ids.
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "text/hf_tokenizer_spec.h"
#include "util/json_document.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Qwen2's pre-tokenizer (the slow class's PRETOKENIZE_REGEX; the fast tokenizer.json has the same).
constexpr const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

json read_json_file(const fs::path& p, uint64_t limit, const char* what) {
    return parse_json_document(read_text_file(p, limit, what), p.string());
}

json optional_json(const fs::path& p) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return json::object();
    json j = read_json_file(p, limits::kConfigJsonBytes, p.filename().string().c_str());
    if (!j.is_object()) throw Error(p.string() + ": expected a JSON object");
    return j;
}

// tokenizer_config.json writes a token as "text" or as {"content": "text", ...}.
std::string token_text(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    return {};
}

json merges_from_text(const fs::path& p) {
    const std::string text = read_text_file(p, limits::kTokenizerJsonBytes, "merges file");
    json merges = json::array();
    std::istringstream in(text);
    std::string line;
    long long number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // transformers skips a first "#version" line and empty lines, and splits on whitespace.
        if ((number == 1 && line.rfind("#version", 0) == 0) || line.find_first_not_of(" \t") == std::string::npos)
            continue;
        std::istringstream parts(line);
        std::string left, right, extra;
        parts >> left >> right;
        if (left.empty() || right.empty() || (parts >> extra))
            throw Error(p.string() + ":" + std::to_string(number) + ": a merge must be two tokens separated by a space");
        merges.push_back(json::array({left, right}));
    }
    return merges;
}

}  // namespace

HfTokenizerSpec read_hf_slow_tokenizer_files(const fs::path& dir) {
    const fs::path vocab_path = dir / "vocab.json", merges_path = dir / "merges.txt";
    const json vocab = read_json_file(vocab_path, limits::kTokenizerJsonBytes, "vocabulary");
    if (!vocab.is_object()) throw Error(vocab_path.string() + ": expected a JSON object {token: id}");
    const json config = optional_json(dir / "tokenizer_config.json");
    const json special_map = optional_json(dir / "special_tokens_map.json");

    // Which pre-tokenizer: the slow class decides (Qwen2's regex and NFC, or GPT-2's).
    std::string cls = config.contains("tokenizer_class") && config["tokenizer_class"].is_string()
                          ? config["tokenizer_class"].get<std::string>()
                          : std::string("GPT2Tokenizer");
    json doc;
    doc["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges_from_text(merges_path)}};
    doc["decoder"] = {{"type", "ByteLevel"}};
    if (cls == "Qwen2Tokenizer" || cls == "Qwen2TokenizerFast" || cls == "DreamTokenizer") {
        doc["normalizer"] = {{"type", "NFC"}};
        doc["pre_tokenizer"] = {{"type", "Sequence"},
                                {"pretokenizers",
                                 json::array({{{"type", "Split"},
                                               {"pattern", {{"Regex", kQwen2Pattern}}},
                                               {"behavior", "Isolated"},
                                               {"invert", false}},
                                              {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}};
    } else if (cls == "GPT2Tokenizer" || cls == "GPT2TokenizerFast") {
        const bool prefix = config.value("add_prefix_space", false);
        doc["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", prefix}, {"use_regex", true}};
    } else {
        throw Error((dir / "tokenizer_config.json").string() + ": tokenizer_class \"" + cls +
                    "\" with vocab.json + merges.txt is not supported (supported: Qwen2Tokenizer, DreamTokenizer, "
                    "GPT2Tokenizer); a tokenizer.json would be read instead");
    }

    // Added tokens: tokenizer_config.json's added_tokens_decoder carries every flag; the older
    // added_tokens.json only maps content to id, and a token there is special when
    // special_tokens_map.json or tokenizer_config.json names it.
    json added = json::array();
    if (config.contains("added_tokens_decoder") && config["added_tokens_decoder"].is_object()) {
        for (const auto& [id_text, t] : config["added_tokens_decoder"].items()) {
            long long id = -1;
            try {
                std::size_t used = 0;
                id = std::stoll(id_text, &used);
                if (used != id_text.size()) id = -1;
            } catch (const std::exception&) {
            }
            if (id < 0 || !t.is_object())
                throw Error((dir / "tokenizer_config.json").string() + ": added_tokens_decoder entry \"" +
                            id_text.substr(0, 40) + "\" must map a token id to {\"content\": ...}");
            json a = t;
            a["id"] = id;
            added.push_back(a);
        }
    } else {
        std::set<std::string> specials;
        for (const json* src : {&special_map, &config})
            for (const auto& [key, v] : src->items()) {
                if (key == "additional_special_tokens" && v.is_array())
                    for (const json& x : v) specials.insert(token_text(x));
                else if (key.size() > 6 && key.compare(key.size() - 6, 6, "_token") == 0)
                    specials.insert(token_text(v));
            }
        const json table = optional_json(dir / "added_tokens.json");
        for (const auto& [content, id] : table.items()) {
            const bool special = specials.count(content) != 0;
            added.push_back({{"id", id}, {"content", content}, {"special", special}, {"normalized", !special}});
        }
    }
    doc["added_tokens"] = added;
    return parse_hf_tokenizer_json(doc.dump(), (dir / "vocab.json").string() + " + merges.txt");
}

}  // namespace dlm
