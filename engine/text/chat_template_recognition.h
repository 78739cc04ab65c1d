#pragma once
// Recognising a checkpoint's chat template by its Jinja text. The text is brought to a canonical
// form (the whitespace transformers' renderer drops or keeps, with trim_blocks and lstrip_blocks;
// string literals in one quoting) and compared with the published forms the engine renders; a
// ChatML form's default system turn is read out of the text, so a fine-tune that only changes
// that line is still recognised. Anything else is reported as not recognised, never guessed.
#include <filesystem>
#include <string>
#include <string_view>

#include "text/chat_template.h"

namespace dlm {

// Recognises one template text. Never throws: malformed text is "not recognised" with a note.
ChatTemplate recognise_chat_template(std::string_view jinja_text);

// The template a checkpoint folder publishes: tokenizer_config.json's "chat_template" (a string,
// or a list of {name, template} whose "default" entry is used), else chat_template.jinja, else
// chat_template.json. A folder with none gives kind None, published = false.
ChatTemplate read_chat_template(const std::filesystem::path& dir);

// The canonical form (exposed for tests and for adding a form to the catalogue).
std::string canonical_chat_template(std::string_view jinja_text);

}  // namespace dlm
