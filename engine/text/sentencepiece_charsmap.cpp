#include "text/sentencepiece_charsmap.h"

#include <cstdint>
#include <vector>

#include "util/error.h"

namespace dlm {
namespace {

// One 32-bit unit of a Darts-clone double array, decoded as the library decodes it.
bool has_leaf(uint32_t unit) { return ((unit >> 8) & 1) == 1; }
uint32_t value_of(uint32_t unit) { return unit & ((1U << 31) - 1); }
uint32_t label_of(uint32_t unit) { return unit & ((1U << 31) | 0xFF); }
uint32_t offset_of(uint32_t unit) { return (unit >> 10) << ((unit & (1U << 9)) >> 6); }

}  // namespace

void check_precompiled_charsmap(std::string_view blob, const std::string& source, const char* spec) {
    if (blob.empty()) return;
    auto fail = [&](const std::string& why) {
        throw Error(source + ": not a valid SentencePiece model (the " + spec + "'s precompiled_charsmap " + why + ")");
    };
    if (blob.size() <= 4) fail("is shorter than its 4-byte header");
    const auto* b = reinterpret_cast<const unsigned char*>(blob.data());
    const uint64_t trie_bytes = uint64_t(b[0]) | uint64_t(b[1]) << 8 | uint64_t(b[2]) << 16 | uint64_t(b[3]) << 24;
    if (trie_bytes >= blob.size() - 4 + 1 || trie_bytes + 4 > blob.size())
        fail("declares a " + std::to_string(trie_bytes) + "-byte trie in a " + std::to_string(blob.size()) + "-byte blob");
    const std::size_t units = static_cast<std::size_t>(trie_bytes / 4);
    if (units == 0) fail("has an empty trie");
    std::vector<uint32_t> array(units);
    for (std::size_t i = 0; i < units; ++i) {
        const unsigned char* u = b + 4 + 4 * i;
        array[i] = uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
    }
    const std::size_t strings = blob.size() - 4 - static_cast<std::size_t>(trie_bytes);

    // Every state the library's common-prefix search can reach: from node p it reads unit p ^ c
    // for each input byte c, follows it when its label is c, and reads the leaf unit behind it.
    // A state is visited once, so a hostile cycle ends; the cost is at most 256 reads per unit.
    std::vector<char> seen(units, 0);
    std::vector<std::size_t> todo;
    const uint64_t root = uint64_t(0) ^ offset_of(array[0]);
    if (root >= units) fail("has a root outside its trie");
    todo.push_back(static_cast<std::size_t>(root));
    seen[root] = 1;
    while (!todo.empty()) {
        const std::size_t node = todo.back();
        todo.pop_back();
        for (uint32_t c = 0; c < 256; ++c) {
            const std::size_t child = node ^ c;
            if (child >= units) {
                // The library reads this unit for input byte c: it must exist.
                fail("sends byte " + std::to_string(c) + " outside its trie");
            }
            const uint32_t unit = array[child];
            if (label_of(unit) != c) continue;
            const uint64_t next = uint64_t(child) ^ offset_of(unit);
            if (next >= units) fail("has a transition outside its trie");
            if (has_leaf(unit) && value_of(array[next]) >= strings)
                fail("points past its replacement strings");
            if (!seen[next]) {
                seen[next] = 1;
                todo.push_back(static_cast<std::size_t>(next));
            }
        }
    }
    // The replacement strings are read as C strings: the last one must end inside the blob.
    if (strings > 0 && blob.back() != '\0') fail("does not end its replacement strings with a NUL");
}

}  // namespace dlm
