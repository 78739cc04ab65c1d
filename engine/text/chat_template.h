#pragma once
// Chat templates rebuilt in code (no Jinja interpreter): a checkpoint's published template text
// is recognised (text/chat_template_recognition.h) as one of the forms below, and the prompt is
// rendered by that form with special tokens inserted by id. A template that is not recognised is
// never replaced by a guess: the prompt goes in raw.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "text/tokenizer.h"

namespace dlm {

enum class ChatTemplateKind {
    None,          // raw prompt (plus BOS where the config has one)
    Llama3,        // <|start_header_id|>role<|end_header_id|>\n\ncontent|trim<|eot_id|>, BOS first (LLaDA-Instruct)
    ChatML,        // <|im_start|>role\ncontent<|im_end|>\n, optional default system turn (Dream, Qwen)
    DlmscopeTiny,  // the embedded models' training layout
};

// What a checkpoint's chat template is, as far as this engine can render it.
struct ChatTemplate {
    ChatTemplateKind kind = ChatTemplateKind::None;
    std::string name;            // shown by inspect and the app, e.g. "ChatML (Qwen2.5 form)"
    std::optional<std::string> default_system;  // ChatML: the system turn put first when a conversation has none
    bool published = false;      // the folder carries a template text (recognised or not)
    // A raw prompt starts with the model's BOS only where tokenizing text adds one: tokenizer_config.json's
    // add_bos_token when it says, else whenever the model has a BOS.
    bool bos_on_raw_prompt = true;
    std::string note;            // why prompts go in raw; empty when recognised

    bool recognised() const { return kind != ChatTemplateKind::None; }
    // One line for inspect, the CLI and the app: the form and its default system, or the note.
    std::string describe() const;
};

struct ChatMessage {
    std::string role;  // "system", "user", "assistant"
    std::string content;
};

// A template of `kind` with its usual name and no default system (tests, and forms that have none).
ChatTemplate chat_template_of(ChatTemplateKind kind);

// Token ids of the conversation followed by the assistant generation prompt.
// Special tokens are inserted by id; message text is encoded without parsing special tokens, so a
// typed "<|im_end|>" stays text. ChatTemplateKind::None = the messages joined by newlines, raw
// (after BOS where bos_on_raw_prompt and the model has one).
std::vector<int32_t> apply_chat_template(const ChatTemplate& chat_template, const ModelConfig& config,
                                         const Tokenizer& tok, const std::vector<ChatMessage>& messages);

}  // namespace dlm
