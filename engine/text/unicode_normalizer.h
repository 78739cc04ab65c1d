#pragma once
// Unicode normalization (utf8proc) for tokenizer.json `normalizer` sections.
#include <string>
#include <string_view>
#include <vector>

#include "text/hf_tokenizer_spec.h"

namespace dlm {

// Applies the forms in order. Invalid UTF-8 bytes are passed through untouched and the valid runs
// between them are normalized on their own, so any byte string is accepted.
std::string normalize_unicode(std::string_view text, const std::vector<UnicodeForm>& forms);

}  // namespace dlm
