#include "text/unicode_normalizer.h"

#include <utf8proc.h>

#include <cstdlib>

#include "text/utf8_util.h"
#include "util/error.h"

namespace dlm {
namespace {

utf8proc_option_t options_for(UnicodeForm form) {
    const int base = UTF8PROC_STABLE;
    switch (form) {
        case UnicodeForm::NFC: return static_cast<utf8proc_option_t>(base | UTF8PROC_COMPOSE);
        case UnicodeForm::NFD: return static_cast<utf8proc_option_t>(base | UTF8PROC_DECOMPOSE);
        case UnicodeForm::NFKC: return static_cast<utf8proc_option_t>(base | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
        case UnicodeForm::NFKD: return static_cast<utf8proc_option_t>(base | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
    }
    return static_cast<utf8proc_option_t>(base);
}

// `run` is well-formed UTF-8. utf8proc_map takes an explicit length, so NUL characters survive.
void append_normalized_run(std::string& out, std::string_view run, UnicodeForm form) {
    if (run.empty()) return;
    utf8proc_uint8_t* mapped = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(run.data()),
                                            static_cast<utf8proc_ssize_t>(run.size()), &mapped, options_for(form));
    if (n < 0) {
        std::free(mapped);
        throw Error(std::string("Unicode normalization failed: ") + utf8proc_errmsg(n));
    }
    out.append(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
    std::free(mapped);
}

std::string normalize_once(std::string_view text, UnicodeForm form) {
    std::string out;
    out.reserve(text.size());
    std::size_t run_start = 0, i = 0;
    while (i < text.size()) {
        const std::size_t len = utf8::valid_sequence_length(text, i);
        if (len > 0) {
            i += len;
            continue;
        }
        append_normalized_run(out, text.substr(run_start, i - run_start), form);
        out += text[i];  // the invalid byte itself, unchanged
        run_start = ++i;
    }
    append_normalized_run(out, text.substr(run_start), form);
    return out;
}

}  // namespace

std::string normalize_unicode(std::string_view text, const std::vector<UnicodeForm>& forms) {
    std::string current(text);
    for (UnicodeForm f : forms) current = normalize_once(current, f);
    return current;
}

}  // namespace dlm
