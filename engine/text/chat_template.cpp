// The recognised chat-template forms, rendered in code. Special tokens go in by id, the text between
// them is encoded with parse_special = false, so a user who types "<|eot_id|>" gets those
// characters, not an end of turn. The text segments are cut exactly where the published templates'
// rendered strings are cut by their special tokens, so the ids equal what transformers gives
// (tests/data/tokenizer-vectors/chat.json, made by the reference renderer and tokenizer).
#include "text/chat_template.h"

#include <string_view>

#include "util/error.h"

namespace dlm {
namespace {

const char* kind_name(ChatTemplateKind kind) {
    switch (kind) {
        case ChatTemplateKind::None: return "raw prompt";
        case ChatTemplateKind::Llama3: return "Llama-3 headers";
        case ChatTemplateKind::ChatML: return "ChatML";
        case ChatTemplateKind::DlmscopeTiny: return "dlmscope-tiny";
    }
    return "?";
}

class Builder {
public:
    Builder(ChatTemplateKind kind, const Tokenizer& tok) : kind_(kind), tok_(tok) {}

    int32_t require(std::string_view piece) const {
        if (auto id = tok_.token_id(piece)) return *id;
        throw Error(std::string("the ") + kind_name(kind_) + " chat template needs the token \"" + std::string(piece) +
                    "\", which the tokenizer does not have");
    }
    void id(int32_t token) { ids_.push_back(token); }
    void text(std::string_view s) {
        if (s.empty()) return;
        const auto encoded = tok_.encode(s, /*parse_special=*/false);
        ids_.insert(ids_.end(), encoded.begin(), encoded.end());
    }
    std::vector<int32_t> take() { return std::move(ids_); }

private:
    ChatTemplateKind kind_;
    const Tokenizer& tok_;
    std::vector<int32_t> ids_;
};

// Jinja's `trim` (Python str.strip on the ASCII whitespace that matters in prompts).
std::string_view trim(std::string_view s) {
    constexpr std::string_view ws = " \t\n\r\v\f";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

void check_roles(const std::vector<ChatMessage>& messages) {
    for (std::size_t i = 0; i < messages.size(); ++i)
        if (messages[i].role.empty()) throw Error("chat message " + std::to_string(i) + " has no role");
}

// <|startoftext|><|start_header_id|>ROLE<|end_header_id|>\n\nCONTENT<|eot_id|>...
// <|start_header_id|>assistant<|end_header_id|>\n\n   (always; no default system line)
std::vector<int32_t> llama3(const ModelConfig& config, const Tokenizer& tok, const std::vector<ChatMessage>& messages) {
    Builder b(ChatTemplateKind::Llama3, tok);
    const int32_t start = b.require("<|start_header_id|>");
    const int32_t end = b.require("<|end_header_id|>");
    const int32_t eot = b.require("<|eot_id|>");
    // The template's bos_token: the checkpoint's BOS (config.json, else tokenizer_config.json).
    if (config.bos_token_id >= 0 && !messages.empty()) b.id(config.bos_token_id);  // on the first message
    for (const ChatMessage& m : messages) {
        b.id(start);
        b.text(m.role);
        b.id(end);
        b.text("\n\n" + std::string(trim(m.content)));
        b.id(eot);
    }
    b.id(start);
    b.text("assistant");
    b.id(end);
    b.text("\n\n");
    return b.take();
}

// <|im_start|>ROLE\nCONTENT<|im_end|>\n ... <|im_start|>assistant\n
std::vector<int32_t> chatml(const Tokenizer& tok, const std::optional<std::string>& default_system,
                            const std::vector<ChatMessage>& messages) {
    Builder b(ChatTemplateKind::ChatML, tok);
    const int32_t start = b.require("<|im_start|>");
    const int32_t end = b.require("<|im_end|>");
    const auto turn = [&](std::string_view role, std::string_view content) {
        b.id(start);
        b.text(std::string(role) + "\n" + std::string(content));
        b.id(end);
        b.text("\n");
    };
    if (default_system && (messages.empty() || messages.front().role != "system")) turn("system", *default_system);
    for (const ChatMessage& m : messages) turn(m.role, m.content);
    b.id(start);
    b.text("assistant\n");
    return b.take();
}

// The embedded model's training layout (tools/train/common.py):
//   <s><|user|>\nPROMPT<|eot|><|assistant|>\n   then RESPONSE<|eot|> for answered turns.
// It has no system marker: system text is put in front of the next user message.
std::vector<int32_t> dlmscope_tiny(const ModelConfig& config, const Tokenizer& tok,
                                   const std::vector<ChatMessage>& messages) {
    Builder b(ChatTemplateKind::DlmscopeTiny, tok);
    const int32_t user = b.require("<|user|>");
    const int32_t assistant = b.require("<|assistant|>");
    const int32_t eot = b.require("<|eot|>");
    b.id(config.bos_token_id >= 0 ? config.bos_token_id : b.require("<s>"));

    std::string pending_system;
    for (const ChatMessage& m : messages) {
        if (m.role == "system") {
            pending_system += m.content + "\n";
        } else if (m.role == "user") {
            b.id(user);
            b.text("\n" + pending_system + m.content);
            b.id(eot);
            pending_system.clear();
        } else if (m.role == "assistant") {
            b.id(assistant);
            b.text("\n");  // encoded apart from the response, as in training
            b.text(m.content);
            b.id(eot);
        } else {
            throw Error("the dlmscope-tiny chat template has no role \"" + m.role +
                        "\" (it knows system, user and assistant)");
        }
    }
    if (!pending_system.empty()) {  // system text with no user turn after it: it is the prompt
        pending_system.pop_back();
        b.id(user);
        b.text("\n" + pending_system);
        b.id(eot);
    }
    b.id(assistant);
    b.text("\n");
    return b.take();
}

std::vector<int32_t> plain(const ModelConfig& config, const Tokenizer& tok, bool bos,
                           const std::vector<ChatMessage>& messages) {
    Builder b(ChatTemplateKind::None, tok);
    if (bos && config.bos_token_id >= 0) b.id(config.bos_token_id);
    std::string joined;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        if (i) joined += "\n";
        joined += messages[i].content;
    }
    b.text(joined);
    return b.take();
}

}  // namespace

std::string ChatTemplate::describe() const {
    if (!recognised()) return note.empty() ? std::string("none: prompts go in raw") : note;
    std::string out = name.empty() ? kind_name(kind) : name;
    if (default_system) out += "; default system \"" + *default_system + "\"";
    return out;
}

ChatTemplate chat_template_of(ChatTemplateKind kind) {
    ChatTemplate t;
    t.kind = kind;
    t.name = kind_name(kind);
    return t;
}

std::vector<int32_t> apply_chat_template(const ChatTemplate& chat_template, const ModelConfig& config,
                                         const Tokenizer& tok, const std::vector<ChatMessage>& messages) {
    check_roles(messages);
    switch (chat_template.kind) {
        case ChatTemplateKind::Llama3: return llama3(config, tok, messages);
        case ChatTemplateKind::ChatML: return chatml(tok, chat_template.default_system, messages);
        case ChatTemplateKind::DlmscopeTiny: return dlmscope_tiny(config, tok, messages);
        case ChatTemplateKind::None: break;
    }
    return plain(config, tok, chat_template.bos_on_raw_prompt, messages);
}

}  // namespace dlm
