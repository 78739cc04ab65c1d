#pragma once
// The published chat-template texts the engine recognises, each with the form that renders it.
#include <string_view>
#include <vector>

#include "text/chat_template.h"

namespace dlm {

struct PublishedChatTemplate {
    ChatTemplateKind kind;
    std::string_view name;
    std::string_view text;  // "@@SYSTEM@@" marks a default system line the form reads out of a template
};

inline constexpr std::string_view kDefaultSystemSlot = "@@SYSTEM@@";

const std::vector<PublishedChatTemplate>& published_chat_templates();

}  // namespace dlm
