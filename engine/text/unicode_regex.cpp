#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/unicode_regex.h"

#include <pcre2.h>

#include "text/utf8_util.h"
#include "util/error.h"

namespace dlm {

struct UnicodeRegex::Impl {
    pcre2_code* code = nullptr;
    ~Impl() {
        if (code) pcre2_code_free(code);
    }
};

UnicodeRegex::UnicodeRegex(std::string_view pattern, const std::string& source) : impl_(std::make_unique<Impl>()) {
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code, &error_offset,
                                nullptr);
    if (!impl_->code) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error_code, message, sizeof message);
        throw Error(source + ": the regex \"" + std::string(pattern) + "\" does not compile (PCRE2: " +
                    reinterpret_cast<const char*>(message) + " at offset " + std::to_string(error_offset) + ")");
    }
    // JIT is only a speed-up; the interpreter gives the same matches when JIT is unavailable.
    pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);
}

UnicodeRegex::~UnicodeRegex() = default;

std::vector<std::pair<std::size_t, std::size_t>> UnicodeRegex::find_all(std::string_view subject) const {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
    if (!data) throw Error("out of memory while splitting text for tokenization");
    const auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
    std::size_t offset = 0;
    uint32_t options = 0;
    while (offset <= subject.size()) {
        const int rc = pcre2_match(impl_->code, s, subject.size(), offset, options, data, nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) {
            if (options == 0) break;
            // An empty match at `offset` could not be extended: step over one character.
            options = 0;
            offset += utf8::char_length(subject, offset);
            continue;
        }
        if (rc < 0) {
            pcre2_match_data_free(data);
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw Error(std::string("tokenizer regex failed while splitting text (PCRE2: ") +
                        reinterpret_cast<const char*>(message) + ")");
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data);
        const std::size_t begin = ov[0], end = ov[1];
        if (end > begin) matches.emplace_back(begin, end);
        offset = end;
        // After an empty match, look for a non-empty one at the same place before moving on.
        options = (end == begin) ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
        if (end == begin && offset >= subject.size()) break;
    }
    pcre2_match_data_free(data);
    return matches;
}

}  // namespace dlm
