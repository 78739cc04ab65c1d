// tokenizer.json -> HfTokenizerSpec. Every rejection names the file, the JSON field and the value
// so a user can tell a truncated download from an unsupported tokenizer family.
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "text/hf_tokenizer_spec.h"
#include "util/json_document.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm {
namespace {

using nlohmann::json;

class Reader {
public:
    explicit Reader(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

    const json& object_at(const json& parent, const char* key, const std::string& where) const {
        auto it = parent.find(key);
        if (it == parent.end()) fail(where + " has no \"" + key + "\"");
        if (!it->is_object()) fail(where + "." + key + " must be an object");
        return *it;
    }

    std::string string_at(const json& parent, const char* key, const std::string& where) const {
        auto it = parent.find(key);
        if (it == parent.end() || !it->is_string()) fail(where + "." + key + " must be a string");
        return it->get<std::string>();
    }

    // Optional boolean: absent or null gives `fallback`.
    bool bool_at(const json& parent, const char* key, bool fallback, const std::string& where) const {
        auto it = parent.find(key);
        if (it == parent.end() || it->is_null()) return fallback;
        if (!it->is_boolean()) fail(where + "." + key + " must be true or false, not " + it->dump());
        return it->get<bool>();
    }

    std::string type_of(const json& section, const std::string& where) const {
        if (!section.is_object()) fail(where + " must be an object or null, not " + section.dump());
        return string_at(section, "type", where);
    }

private:
    const std::string& source_;
};

std::string brief(const json& j) {
    std::string s = j.dump();
    return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

void read_normalizer(const Reader& r, const json& n, const std::string& where, std::vector<UnicodeForm>& out) {
    if (n.is_null()) return;
    const std::string type = r.type_of(n, where);
    if (type == "NFC") out.push_back(UnicodeForm::NFC);
    else if (type == "NFD") out.push_back(UnicodeForm::NFD);
    else if (type == "NFKC") out.push_back(UnicodeForm::NFKC);
    else if (type == "NFKD") out.push_back(UnicodeForm::NFKD);
    else if (type == "Sequence") {
        auto it = n.find("normalizers");
        if (it == n.end() || !it->is_array()) r.fail(where + ".normalizers must be an array");
        for (std::size_t i = 0; i < it->size(); ++i)
            read_normalizer(r, (*it)[i], where + ".normalizers[" + std::to_string(i) + "]", out);
    } else {
        r.fail(where + " type \"" + type +
               "\" is not supported (supported: NFC, NFD, NFKC, NFKD and Sequence of them)");
    }
}

SplitBehavior read_behavior(const Reader& r, const std::string& name, const std::string& where) {
    if (name == "Isolated") return SplitBehavior::Isolated;
    if (name == "Removed") return SplitBehavior::Removed;
    if (name == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
    if (name == "MergedWithNext") return SplitBehavior::MergedWithNext;
    if (name == "Contiguous") return SplitBehavior::Contiguous;
    r.fail(where + ".behavior \"" + name +
           "\" is not supported (supported: Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous)");
}

void read_pre_tokenizer(const Reader& r, const json& p, const std::string& where,
                        std::vector<HfPreTokenizerStep>& out) {
    if (p.is_null()) return;
    const std::string type = r.type_of(p, where);
    if (type == "Sequence") {
        auto it = p.find("pretokenizers");
        if (it == p.end() || !it->is_array()) r.fail(where + ".pretokenizers must be an array");
        for (std::size_t i = 0; i < it->size(); ++i)
            read_pre_tokenizer(r, (*it)[i], where + ".pretokenizers[" + std::to_string(i) + "]", out);
    } else if (type == "Split") {
        HfPreTokenizerStep step;
        step.kind = HfPreTokenizerStep::Kind::Split;
        const json& pattern = r.object_at(p, "pattern", where);
        if (auto re = pattern.find("Regex"); re != pattern.end() && re->is_string()) {
            step.pattern = re->get<std::string>();
            step.pattern_is_regex = true;
        } else if (auto s = pattern.find("String"); s != pattern.end() && s->is_string()) {
            step.pattern = s->get<std::string>();
            step.pattern_is_regex = false;
        } else {
            r.fail(where + ".pattern must be {\"Regex\": \"...\"} or {\"String\": \"...\"}, not " + brief(pattern));
        }
        step.behavior = read_behavior(r, r.string_at(p, "behavior", where), where);
        step.invert = r.bool_at(p, "invert", false, where);
        out.push_back(std::move(step));
    } else if (type == "ByteLevel") {
        HfPreTokenizerStep step;
        step.kind = HfPreTokenizerStep::Kind::ByteLevel;
        step.add_prefix_space = r.bool_at(p, "add_prefix_space", true, where);
        step.use_regex = r.bool_at(p, "use_regex", true, where);
        out.push_back(std::move(step));
    } else {
        r.fail(where + " type \"" + type + "\" is not supported (supported: Sequence, Split, ByteLevel)");
    }
}

void check_decoder(const Reader& r, const json& d, const std::string& where) {
    if (d.is_null()) return;
    const std::string type = r.type_of(d, where);
    if (type == "ByteLevel") return;
    if (type == "Sequence") {
        auto it = d.find("decoders");
        if (it == d.end() || !it->is_array()) r.fail(where + ".decoders must be an array");
        for (std::size_t i = 0; i < it->size(); ++i)
            check_decoder(r, (*it)[i], where + ".decoders[" + std::to_string(i) + "]");
        return;
    }
    r.fail(where + " type \"" + type + "\" is not supported (byte-level BPE needs the ByteLevel decoder)");
}

void read_model(const Reader& r, const json& model, HfTokenizerSpec& spec) {
    if (auto t = model.find("type"); t != model.end()) {
        if (!t->is_string()) r.fail("model.type must be a string");
        const std::string type = t->get<std::string>();
        if (type != "BPE")
            r.fail("model type \"" + type + "\" is not supported (only byte-level \"BPE\" tokenizer.json files are)");
    } else if (!model.contains("merges")) {
        r.fail("model has no \"type\" and no \"merges\", so it is not a BPE model");
    }

    const json& vocab = r.object_at(model, "vocab", "model");
    std::unordered_map<int32_t, std::string> by_id;
    spec.vocab.reserve(vocab.size());
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 ||
            it.value().get<int64_t>() > INT32_MAX)
            r.fail("model.vocab[\"" + it.key() + "\"] must be a non-negative integer id, not " + brief(it.value()));
        const auto id = static_cast<int32_t>(it.value().get<int64_t>());
        auto [pos, fresh] = by_id.emplace(id, it.key());
        if (!fresh)
            r.fail("model.vocab ids are not unique: \"" + pos->second + "\" and \"" + it.key() + "\" both have id " +
                   std::to_string(id));
        spec.vocab.emplace_back(it.key(), id);
    }

    if (auto m = model.find("merges"); m != model.end() && !m->is_null()) {
        if (!m->is_array()) r.fail("model.merges must be an array");
        spec.merges.reserve(m->size());
        for (std::size_t i = 0; i < m->size(); ++i) {
            const json& e = (*m)[i];
            const std::string where = "model.merges[" + std::to_string(i) + "]";
            if (e.is_string()) {
                // Legacy form "left right": byte-level tokens never hold a plain space, so there
                // must be exactly one.
                const std::string s = e.get<std::string>();
                const auto space = s.find(' ');
                if (space == std::string::npos || space == 0 || space + 1 == s.size() ||
                    s.find(' ', space + 1) != std::string::npos)
                    r.fail(where + " \"" + s + "\" is not of the form \"left right\"");
                spec.merges.emplace_back(s.substr(0, space), s.substr(space + 1));
            } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
                spec.merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
            } else {
                r.fail(where + " must be \"left right\" or [\"left\", \"right\"], not " + brief(e));
            }
        }
    }

    spec.ignore_merges = r.bool_at(model, "ignore_merges", false, "model");
    if (auto u = model.find("unk_token"); u != model.end() && !u->is_null()) {
        if (!u->is_string()) r.fail("model.unk_token must be a string or null");
        spec.unk_token = u->get<std::string>();
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        auto it = model.find(key);
        if (it == model.end() || it->is_null()) continue;
        if (!it->is_string()) r.fail(std::string("model.") + key + " must be a string or null");
        if (!it->get<std::string>().empty())
            r.fail(std::string("model.") + key + " \"" + it->get<std::string>() +
                   "\" is not supported (byte-level BPE uses none)");
    }
    // `dropout` only matters for training-time regularisation; inference never drops merges.
}

void read_added_tokens(const Reader& r, const json& doc, HfTokenizerSpec& spec) {
    auto it = doc.find("added_tokens");
    if (it == doc.end() || it->is_null()) return;
    if (!it->is_array()) r.fail("added_tokens must be an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json& t = (*it)[i];
        const std::string where = "added_tokens[" + std::to_string(i) + "]";
        if (!t.is_object()) r.fail(where + " must be an object");
        HfAddedToken a;
        auto id = t.find("id");
        if (id == t.end() || !id->is_number_integer() || id->get<int64_t>() < 0 || id->get<int64_t>() > INT32_MAX)
            r.fail(where + ".id must be a non-negative integer");
        a.id = static_cast<int32_t>(id->get<int64_t>());
        a.content = r.string_at(t, "content", where);
        if (a.content.empty()) r.fail(where + ".content is empty");
        a.special = r.bool_at(t, "special", false, where);
        a.single_word = r.bool_at(t, "single_word", false, where);
        a.lstrip = r.bool_at(t, "lstrip", false, where);
        a.rstrip = r.bool_at(t, "rstrip", false, where);
        // HF's default for non-special added tokens is normalized = true.
        a.normalized = r.bool_at(t, "normalized", !a.special, where);
        spec.added_tokens.push_back(std::move(a));
    }
}

}  // namespace

HfTokenizerSpec parse_hf_tokenizer_json(std::string_view json_text, const std::string& source) {
    const json doc = parse_json_document(json_text, source);
    Reader r(source);
    if (!doc.is_object()) r.fail("the top level must be a JSON object");

    HfTokenizerSpec spec;
    spec.source = source;
    try {
        read_model(r, r.object_at(doc, "model", "the file"), spec);
        read_added_tokens(r, doc, spec);
        if (auto n = doc.find("normalizer"); n != doc.end()) read_normalizer(r, *n, "normalizer", spec.normalizer);
        if (auto p = doc.find("pre_tokenizer"); p != doc.end())
            read_pre_tokenizer(r, *p, "pre_tokenizer", spec.pre_tokenizer);
        if (auto d = doc.find("decoder"); d != doc.end()) check_decoder(r, *d, "decoder");
        // post_processor is deliberately not read: templates insert BOS/EOS by id.
    } catch (const json::exception& e) {
        r.fail(std::string("unexpected structure (") + e.what() + ")");
    }

    bool byte_level = false;
    for (const auto& s : spec.pre_tokenizer) byte_level |= s.kind == HfPreTokenizerStep::Kind::ByteLevel;
    if (!byte_level)
        r.fail("pre_tokenizer has no ByteLevel step; only byte-level BPE tokenizers (GPT-2, Llama 3, Qwen2, "
               "LLaDA) are supported");
    return spec;
}

}  // namespace dlm
