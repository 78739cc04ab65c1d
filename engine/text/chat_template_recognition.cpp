#include "text/chat_template_recognition.h"

#include <nlohmann/json.hpp>

#include "text/chat_template_catalog.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_document.h"
#include "util/text_file.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;

struct Malformed {
    std::string why;
};

enum class PieceKind { Text, Expression, Statement, Comment };

struct Piece {
    PieceKind kind = PieceKind::Text;
    std::string body;          // text, or the tag's inside without delimiters and trim markers
    bool strip_before = false;  // "{%-": whitespace before the tag is dropped
    bool strip_after = false;   // "-%}": whitespace after it is dropped
    bool keep_before = false;   // "{%+": lstrip_blocks does not apply
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// Splits the template into text and tags; quoted strings inside tags may hold delimiters.
std::vector<Piece> lex(std::string_view s) {
    std::vector<Piece> out;
    std::size_t i = 0;
    std::string text;
    const auto flush_text = [&] {
        if (!text.empty()) out.push_back({PieceKind::Text, std::move(text)});
        text.clear();
    };
    while (i < s.size()) {
        if (s[i] != '{' || i + 1 >= s.size() || (s[i + 1] != '{' && s[i + 1] != '%' && s[i + 1] != '#')) {
            text += s[i++];
            continue;
        }
        flush_text();
        Piece p;
        const char open = s[i + 1];
        p.kind = open == '{' ? PieceKind::Expression : open == '%' ? PieceKind::Statement : PieceKind::Comment;
        const char close = open == '{' ? '}' : open;
        i += 2;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
            p.strip_before = s[i] == '-';
            p.keep_before = s[i] == '+';
            ++i;
        }
        std::size_t end = std::string_view::npos;
        for (std::size_t j = i; j + 1 < s.size(); ++j) {
            if (p.kind != PieceKind::Comment && (s[j] == '\'' || s[j] == '"')) {  // skip a string literal
                const char q = s[j];
                for (++j; j < s.size() && s[j] != q; ++j)
                    if (s[j] == '\\') ++j;
                if (j >= s.size()) throw Malformed{"a string literal is not closed"};
                continue;
            }
            if (s[j] == close && s[j + 1] == '}') {
                end = j;
                break;
            }
        }
        if (end == std::string_view::npos) throw Malformed{"a tag is not closed"};
        std::size_t body_end = end;
        if (body_end > i && (s[body_end - 1] == '-' || s[body_end - 1] == '+')) {
            p.strip_after = s[body_end - 1] == '-';
            --body_end;
        }
        p.body = std::string(s.substr(i, body_end - i));
        out.push_back(std::move(p));
        i = end + 2;
    }
    flush_text();
    return out;
}

// The whitespace rules of transformers' renderer (Jinja with trim_blocks and lstrip_blocks) and
// the explicit "-" markers, applied to the text between tags.
void apply_whitespace_control(std::vector<Piece>& pieces) {
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        Piece& t = pieces[k];
        if (t.kind != PieceKind::Text) continue;
        const Piece* prev = k > 0 ? &pieces[k - 1] : nullptr;
        const Piece* next = k + 1 < pieces.size() ? &pieces[k + 1] : nullptr;
        const bool prev_block = prev && (prev->kind == PieceKind::Statement || prev->kind == PieceKind::Comment);
        const bool next_block = next && (next->kind == PieceKind::Statement || next->kind == PieceKind::Comment);
        // Both Jinja rules look at the source text, so decide them before cutting anything.
        std::size_t end = t.body.size();
        if (next && next->strip_before) {
            while (end > 0 && is_space(t.body[end - 1])) --end;
        } else if (next_block && !next->keep_before) {  // lstrip_blocks: blanks from a line's start to the tag
            std::size_t e = end;
            while (e > 0 && (t.body[e - 1] == ' ' || t.body[e - 1] == '\t')) --e;
            if ((e > 0 && t.body[e - 1] == '\n') || (e == 0 && k == 0)) end = e;
        }
        std::size_t begin = 0;
        if (prev && prev->strip_after) {
            while (begin < end && is_space(t.body[begin])) ++begin;
        } else if (prev_block && end > 0 && t.body[0] == '\n') {  // trim_blocks
            begin = 1;
        }
        t.body = begin < end ? t.body.substr(begin, end - begin) : std::string();
    }
}

void append_escaped(std::string& out, std::string_view content) {
    for (char c : content) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\'': out += "\\'"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default: out += c;
        }
    }
}

// A tag's inside: whitespace dropped except one space between two word characters; string
// literals decoded and written again in single quotes.
std::string canonical_tag(std::string_view body) {
    std::string out;
    bool pending_space = false;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (is_space(c)) {
            pending_space = true;
            continue;
        }
        if (pending_space && !out.empty() && is_word(out.back()) && is_word(c)) out += ' ';
        pending_space = false;
        if (c == '\'' || c == '"') {
            std::string content;
            std::size_t j = i + 1;
            for (; j < body.size() && body[j] != c; ++j) {
                if (body[j] != '\\' || j + 1 >= body.size()) {
                    content += body[j];
                    continue;
                }
                const char e = body[++j];
                content += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
            }
            if (j >= body.size()) throw Malformed{"a string literal is not closed"};
            out += '\'';
            append_escaped(out, content);
            out += '\'';
            i = j;
            continue;
        }
        out += c;
    }
    return out;
}

std::string unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        const char e = s[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
    }
    return out;
}

// Matches `canonical` against a catalogue form whose canonical text may hold the default-system
// slot (the same line in every place it occurs). Returns the slot's value (empty optional: no
// slot) or nullopt-in-a-bool for no match.
bool match_form(const std::string& canonical, const std::string& form, std::optional<std::string>& system) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    const std::string slot(kDefaultSystemSlot);
    for (std::size_t pos; (pos = form.find(slot, at)) != std::string::npos; at = pos + slot.size())
        parts.push_back(form.substr(at, pos - at));
    parts.push_back(form.substr(at));
    const std::size_t slots = parts.size() - 1;
    if (slots == 0) {
        system.reset();
        return canonical == form;
    }
    std::size_t fixed = 0;
    for (const auto& p : parts) fixed += p.size();
    if (canonical.size() < fixed || (canonical.size() - fixed) % slots != 0) return false;
    const std::size_t n = (canonical.size() - fixed) / slots;
    std::string value;
    std::size_t pos = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (canonical.compare(pos, parts[k].size(), parts[k]) != 0) return false;
        pos += parts[k].size();
        if (k == slots) break;
        const std::string v = canonical.substr(pos, n);
        if (k == 0) value = v;
        else if (v != value) return false;
        pos += n;
    }
    // The value sits inside a quoted literal: an unescaped quote would mean it spans code.
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\') ++i;
        else if (value[i] == '\'') return false;
    }
    system = unescape(value);
    return true;
}

std::string first_line(std::string_view s) {
    const std::size_t nl = s.find('\n');
    std::string line(s.substr(0, nl));
    if (line.size() > 60) line = line.substr(0, 57) + "...";
    return line;
}

// The template text a folder publishes, or nullopt; `where` names the file it came from.
// tokenizer_config.json's add_bos_token, when it is a boolean, goes to `add_bos`.
std::optional<std::string> published_text(const fs::path& dir, std::string& where, std::optional<bool>& add_bos) {
    std::error_code ec;
    const fs::path config = dir / "tokenizer_config.json";
    if (fs::is_regular_file(config, ec)) {
        where = "tokenizer_config.json";
        const nlohmann::json j = parse_json_document(read_text_file(config, limits::kConfigJsonBytes, where), where);
        if (j.is_object() && j.contains("add_bos_token") && j.at("add_bos_token").is_boolean())
            add_bos = j.at("add_bos_token").get<bool>();
        if (j.is_object() && j.contains("chat_template")) {
            const auto& t = j.at("chat_template");
            if (t.is_string()) return t.get<std::string>();
            if (t.is_array()) {  // [{"name": "default", "template": "..."}, {"name": "tool_use", ...}]
                for (const auto& e : t)
                    if (e.is_object() && e.value("name", "") == "default" && e.contains("template") &&
                        e.at("template").is_string())
                        return e.at("template").get<std::string>();
                throw Error(where + ": chat_template is a list without a \"default\" entry");
            }
            if (!t.is_null()) throw Error(where + ": chat_template is neither text nor a list of named templates");
        }
    }
    if (fs::is_regular_file(dir / "chat_template.jinja", ec)) {
        where = "chat_template.jinja";
        return read_text_file(dir / where, limits::kConfigJsonBytes, where);
    }
    if (fs::is_regular_file(dir / "chat_template.json", ec)) {
        where = "chat_template.json";
        const nlohmann::json j =
            parse_json_document(read_text_file(dir / where, limits::kConfigJsonBytes, where), where);
        if (j.is_object() && j.contains("chat_template") && j.at("chat_template").is_string())
            return j.at("chat_template").get<std::string>();
        throw Error(where + ": no \"chat_template\" text in it");
    }
    return std::nullopt;
}

}  // namespace

std::string canonical_chat_template(std::string_view jinja_text) {
    std::vector<Piece> pieces = lex(jinja_text);
    apply_whitespace_control(pieces);
    std::string out;
    for (const Piece& p : pieces) {
        switch (p.kind) {
            case PieceKind::Text:
                if (p.body.empty()) break;
                out += "T'";
                append_escaped(out, p.body);
                out += "'";
                break;
            case PieceKind::Expression: out += "{{" + canonical_tag(p.body) + "}}"; break;
            case PieceKind::Statement: out += "{%" + canonical_tag(p.body) + "%}"; break;
            case PieceKind::Comment: break;
        }
    }
    return out;
}

ChatTemplate recognise_chat_template(std::string_view jinja_text) {
    ChatTemplate t;
    t.published = true;
    std::string canonical;
    try {
        canonical = canonical_chat_template(jinja_text);
    } catch (const Malformed& m) {
        t.note = "the chat template is not valid Jinja (" + m.why + "): prompts go in raw";
        return t;
    }
    for (const PublishedChatTemplate& form : published_chat_templates()) {
        // The catalogue is canonicalised once; its texts are well-formed by construction.
        static std::vector<std::string> forms = [] {
            std::vector<std::string> v;
            for (const auto& f : published_chat_templates()) v.push_back(canonical_chat_template(f.text));
            return v;
        }();
        const std::size_t k = static_cast<std::size_t>(&form - published_chat_templates().data());
        std::optional<std::string> system;
        if (match_form(canonical, forms[k], system)) {
            t.kind = form.kind;
            t.name = std::string(form.name);
            t.default_system = std::move(system);
            return t;
        }
    }
    t.note = "the chat template (\"" + first_line(jinja_text) +
             "\") is not one this engine renders exactly: prompts go in raw, without a template";
    return t;
}

ChatTemplate read_chat_template(const fs::path& dir) {
    std::string where;
    std::optional<std::string> text;
    std::optional<bool> add_bos;
    try {
        text = published_text(dir, where, add_bos);
    } catch (const std::exception& e) {  // a broken side file must not stop the model from loading
        ChatTemplate t;
        t.published = true;
        t.note = std::string("the chat template could not be read (") + e.what() + "): prompts go in raw";
        return t;
    }
    ChatTemplate t;
    if (text) {
        t = recognise_chat_template(*text);
        if (!t.recognised()) t.note = where + ": " + t.note;
    } else {
        t.note = "the checkpoint publishes no chat template: prompts go in raw";
    }
    if (add_bos) t.bos_on_raw_prompt = *add_bos;
    return t;
}

}  // namespace dlm
