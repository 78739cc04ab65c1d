#pragma once
// Running the built dlmscope-cli from tests, and a tiny random model it can load (a random
// llada checkpoint from tests/support plus a byte-level tokenizer.json written here).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/random_checkpoint.h"

namespace dlm::cli_test {

struct CliResult {
    int status = -1;  // exit status; -1 if the process did not exit normally (signal)
    std::string out;
    std::string err;

    std::vector<std::string> err_lines() const {
        std::vector<std::string> lines;
        std::istringstream s(err);
        for (std::string l; std::getline(s, l);) lines.push_back(l);
        return lines;
    }
    nlohmann::json json() const {
        try {
            return nlohmann::json::parse(out);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "stdout is not one JSON value (" << e.what() << "):\n" << out << "\nstderr:\n" << err;
            return {};
        }
    }
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    ASSERT_TRUE(f.good()) << "cannot write " << p;
}

// Runs `dlmscope-cli args...` with stdout and stderr captured separately.
inline CliResult run_cli(const std::vector<std::string>& args, const std::filesystem::path& scratch) {
    static int counter = 0;
    const auto out = scratch / ("cli-out-" + std::to_string(counter) + ".txt");
    const auto err = scratch / ("cli-err-" + std::to_string(counter) + ".txt");
    ++counter;
    std::string cmd = shell_quote(DLMSCOPE_CLI);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
    const int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

// The contract for every failure: non-zero exit, exactly one stderr line of the CLI's form,
// and no sign of an escaped exception.
inline void expect_one_line_error(const CliResult& r, const std::string& must_contain = "") {
    EXPECT_NE(r.status, 0) << "stdout: " << r.out;
    EXPECT_NE(r.status, -1) << "the CLI did not exit normally (killed by a signal?)";
    const auto lines = r.err_lines();
    ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
    EXPECT_EQ(lines[0].rfind("dlmscope-cli: error: ", 0), 0u) << lines[0];
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos);
    if (!must_contain.empty()) EXPECT_NE(lines[0].find(must_contain), std::string::npos) << lines[0];
}

// GPT-2 bytes_to_unicode: the printable symbol standing for each byte in a byte-level vocab.
inline std::string byte_symbol(int b) {
    auto printable = [](int x) { return (x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF); };
    int cp = b;
    if (!printable(b)) {
        int n = 0;
        for (int x = 0; x < b; ++x) n += !printable(x);
        cp = 256 + n;
    }
    std::string s;
    if (cp < 0x80) s += static_cast<char>(cp);
    else {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

// Ids 0..255 = bytes (no merges), 256 = <|endoftext|> (eos), 257 = <|mdm_mask|> (mask):
// exactly the special ids write_random_checkpoint picks for a vocabulary of 258.
inline constexpr int kTinyVocab = 258;

inline void write_byte_tokenizer(const std::filesystem::path& dir) {
    using nlohmann::json;
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[byte_symbol(b)] = b;
    auto added = [](int id, const char* content) {
        return json{{"id", id},          {"content", content}, {"single_word", false}, {"lstrip", false},
                    {"rstrip", false},   {"normalized", false}, {"special", true}};
    };
    const json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}};
    json tok = {
        {"version", "1.0"},
        {"truncation", nullptr},
        {"padding", nullptr},
        {"added_tokens", json::array({added(256, "<|endoftext|>"), added(257, "<|mdm_mask|>")})},
        {"normalizer", {{"type", "NFC"}}},
        {"pre_tokenizer",
         {{"type", "Sequence"},
          {"pretokenizers",
           json::array({json{{"type", "Split"},
                             {"pattern", {{"Regex", R"( ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+)"}}},
                             {"behavior", "Isolated"},
                             {"invert", false}},
                        byte_level})}}},
        {"post_processor", byte_level},
        {"decoder", byte_level},
        {"model",
         {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", ""},
          {"end_of_word_suffix", ""}, {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", false},
          {"vocab", vocab}, {"merges", json::array()}}},
    };
    write_text(dir / "tokenizer.json", tok.dump(1));
}

// A loadable tiny llada checkpoint folder: random weights, real config.json, byte tokenizer.
inline test::RandomCheckpoint write_tiny_model(const std::filesystem::path& dir) {
    test::RandomCheckpointOptions o;
    o.vocab_size = kTinyVocab;
    o.d_model = 32;
    o.n_layers = 2;
    o.n_heads = 4;
    o.d_ff = 48;
    o.max_seq_len = 256;
    auto ckpt = test::write_random_checkpoint(dir, Family::Llada, o);
    write_byte_tokenizer(dir);
    return ckpt;
}

}  // namespace dlm::cli_test
