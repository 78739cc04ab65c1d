#pragma once
// A compiled Unicode regex (PCRE2, UTF + UCP, JIT where available) for tokenizer pre-splitting.
// Patterns from tokenizer.json are used verbatim: PCRE2 understands \p{L}, (?i:...) and
// lookahead, which std::regex does not. Invalid UTF-8 in the subject is allowed
// (PCRE2_MATCH_INVALID_UTF): such bytes simply never match and end up between matches.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlm {

class UnicodeRegex {
public:
    // Throws dlm::Error naming `source` (e.g. "tokenizer.json pre_tokenizer pattern"), the
    // pattern and PCRE2's message when the pattern does not compile.
    UnicodeRegex(std::string_view pattern, const std::string& source);
    ~UnicodeRegex();
    UnicodeRegex(const UnicodeRegex&) = delete;
    UnicodeRegex& operator=(const UnicodeRegex&) = delete;

    // All non-overlapping matches, left to right, as [begin, end) byte offsets. Empty matches are
    // not reported. Safe to call from several threads at once.
    std::vector<std::pair<std::size_t, std::size_t>> find_all(std::string_view subject) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace dlm
