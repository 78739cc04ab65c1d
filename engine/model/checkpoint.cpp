#include "model/checkpoint.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/embedded_models.h"
#include "model/folder_links.h"
#include "model/hf_cache.h"
#include "text/chat_template_recognition.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_depth.h"
#include "util/text_file.h"

namespace dlm {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// config.json and its side files (generation_config.json, tokenizer_config.json), within the
// limits of util/input_limits.h.
std::string read_config_text(const fs::path& p) {
    std::string text = read_text_file(p, limits::kConfigJsonBytes, p.filename().string());
    check_json_depth(text, p.string());
    return text;
}

// Side files are a best-effort source of ids: unreadable or odd ones are ignored (config.json is
// the authority; these only fill what it leaves out).
json read_optional_json(const fs::path& p) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return json::object();
    try {
        json j = json::parse(read_config_text(p));
        return j.is_object() ? j : json::object();
    } catch (const std::exception&) {
        return json::object();
    }
}

// training.json, the embedded models' record of their training (tools/train/export.py writes it):
// the longest sequence that training used, when the record gives one; 0 otherwise.
int trained_sequence_length(const fs::path& dir) {
    const json record = read_optional_json(dir / "training.json");
    const auto it = record.find("trained_sequence_length");
    if (it == record.end() || !it->is_number_integer()) return 0;
    const long long n = it->get<long long>();
    return n > 0 && n <= std::numeric_limits<int>::max() ? int(n) : 0;
}

bool missing(const json& config, const char* key) { return !config.contains(key) || config.at(key).is_null(); }

// tokenizer_config.json writes special tokens either as a string or as {"content": "..."}.
std::string token_content(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v.at("content").is_string()) return v.at("content").get<std::string>();
    return {};
}

// Fills special ids config.json leaves out:
//  1. generation_config.json: bos/eos/pad/mask_token_id as numbers (eos may be a list);
//  2. tokenizer_config.json: bos/eos/pad/mask_token as strings, resolved through the tokenizer;
//  3. eot_token_id: the end-of-turn piece of the chat format ("<|eot_id|>" for LLaDA,
//     "<|im_end|>" for ChatML) when the tokenizer has it and it differs from eos.
// The result goes through parse_model_config, so every filled id is validated like a written one.
void fill_special_ids(json& config, const fs::path& dir, const Tokenizer& tokenizer, std::vector<std::string>& warnings) {
    const json generation = read_optional_json(dir / "generation_config.json");
    for (const char* key : {"bos_token_id", "eos_token_id", "pad_token_id", "mask_token_id"}) {
        if (missing(config, key) && generation.contains(key) && !generation.at(key).is_null()) {
            config[key] = generation.at(key);
        }
    }
    const json tok_config = read_optional_json(dir / "tokenizer_config.json");
    const std::pair<const char*, const char*> by_piece[] = {{"bos_token_id", "bos_token"},
                                                           {"eos_token_id", "eos_token"},
                                                           {"pad_token_id", "pad_token"},
                                                           {"mask_token_id", "mask_token"}};
    for (const auto& [key, field] : by_piece) {
        if (!tok_config.contains(field)) continue;
        const std::string piece = token_content(tok_config.at(field));
        if (piece.empty()) continue;
        const auto id = tokenizer.token_id(piece);
        if (missing(config, key)) {
            if (id) config[key] = *id;
        } else if (id && config.at(key).is_number_integer() && config.at(key).get<long long>() != *id) {
            // Both files name this token and disagree: config.json is the authority, said aloud.
            const long long written = config.at(key).get<long long>();
            std::string named;
            if (written >= 0 && written < tokenizer.vocab_size()) named = " (" + tokenizer.token_text(static_cast<int32_t>(written)) + ")";
            warnings.push_back(std::string("config.json's ") + key + " " + std::to_string(written) + named +
                               " differs from tokenizer_config.json's " + field + " " + piece + " (" +
                               std::to_string(*id) + "); config.json's is used");
        }
    }
    if (missing(config, "eot_token_id")) {
        for (const char* piece : {"<|eot_id|>", "<|im_end|>"}) {
            auto id = tokenizer.token_id(piece);
            const bool same_as_eos = config.contains("eos_token_id") && config.at("eos_token_id").is_number_integer() &&
                                     id && config.at("eos_token_id").get<long long>() == *id;
            if (id && !same_as_eos) {
                config["eot_token_id"] = *id;
                break;
            }
        }
    }
}

}  // namespace

fs::path checked_model_folder(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw Error("model folder '" + path.string() + "' does not exist");
    if (!fs::is_directory(path, ec)) {
        const fs::path parent = fs::absolute(path).parent_path();
        throw Error("model path '" + path.string() + "' is not a folder" +
                    (holds_checkpoint(parent) ? "; the checkpoint is the folder that holds it: " + parent.string()
                                              : " (pass the checkpoint folder)"));
    }
    return checkpoint_folder(path);
}

Checkpoint load_checkpoint(const fs::path& requested) {
    const fs::path dir = checked_model_folder(requested);
    std::error_code ec;
    check_folder_links(dir);
    const fs::path config_path = dir / "config.json";
    if (!fs::is_regular_file(config_path, ec)) {
        if (is_hf_cache_repo(dir)) {  // checkpoint_folder found no one snapshot to stand for it
            std::string names;
            for (const fs::path& s : hf_cache_snapshots(dir)) names += (names.empty() ? "" : ", ") + s.filename().string();
            throw Error(dir.string() + ": a Hugging Face cache repository whose refs/main names no snapshot here; " +
                        (names.empty() ? std::string("it has no snapshots (was the download finished?)")
                                       : "open one of its snapshots: " + (dir / "snapshots").string() + "/{" + names + "}"));
        }
        throw Error(dir.string() + ": no config.json (is this a Hugging Face checkpoint folder?)");
    }

    const std::string config_text = read_config_text(config_path);
    json config;
    try {
        config = json::parse(config_text);
    } catch (const json::exception&) {
        load_model_config(config_path);  // throws the standard, file-named message
        throw;                           // unreachable: the parse above failed the same way
    }
    if (!config.is_object()) load_model_config(config_path);  // throws "expected a JSON object"
    // Architecture and field errors come before any tokenizer or weights error. A missing mask id
    // is the one gap the side files may still fill, so this first pass stands in a placeholder.
    json draft_json = config;
    if (missing(draft_json, "mask_token_id")) {
        const bool pad_is_zero = draft_json.contains("pad_token_id") && draft_json["pad_token_id"] == 0;
        draft_json["mask_token_id"] = pad_is_zero ? 1 : 0;  // must not collide with the pad id
    }
    const ModelConfig draft = parse_model_config(draft_json.dump(), config_path.string());

    std::shared_ptr<Tokenizer> tokenizer = load_tokenizer(dir);
    if (tokenizer->vocab_size() > draft.vocab_size) {
        throw Error(dir.string() + ": the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                    " tokens but the model's embedding has only " + std::to_string(draft.vocab_size) +
                    " rows; tokenizer and weights do not belong together");
    }
    const std::string before = config.dump();
    std::vector<std::string> warnings;
    fill_special_ids(config, dir, *tokenizer, warnings);
    const std::string source = config.dump() == before
                                   ? config_path.string()
                                   : config_path.string() + " (ids completed from generation_config.json / "
                                                            "tokenizer_config.json)";
    ModelConfig model_config = parse_model_config(config.dump(), source);
    model_config.trained_seq_len = trained_sequence_length(dir);

    std::shared_ptr<WeightStore> store = WeightStore::open(dir);
    return Checkpoint{dir, bind_weights(model_config, std::move(store)), std::move(tokenizer), read_chat_template(dir),
                      std::move(warnings)};
}

}  // namespace dlm
