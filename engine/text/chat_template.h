#pragma once
// Chat templates by the special tokens a tokenizer has (no Jinja): LLaDA-Instruct (Llama-3
// headers, BOS first), Dream/Qwen (ChatML with the model's default system line), and the
// embedded dlmscope-tiny template.
#include <cstdint>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "text/tokenizer.h"

namespace dlm {

enum class ChatTemplateKind { None, Llama3, ChatML, DlmscopeTiny };

struct ChatMessage {
    std::string role;  // "system", "user", "assistant"
    std::string content;
};

// Picks the template from the family and the tokenizer's vocabulary.
ChatTemplateKind detect_chat_template(const ModelConfig& config, const Tokenizer& tok);

// Token ids of the conversation followed by the assistant generation prompt.
// Special tokens are inserted by id. ChatTemplateKind::None = plain text (plus BOS if the config has one).
std::vector<int32_t> apply_chat_template(ChatTemplateKind kind, const ModelConfig& config,
                                         const Tokenizer& tok,
                                         const std::vector<ChatMessage>& messages);

}  // namespace dlm
