// Limits by design on what the engine reads (util/input_limits.h): JSON nesting, file kinds and sizes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <string>

#include "support/scratch_dir.h"
#include "eval/eval_example.h"
#include "util/error.h"
#include "support/error_text.h"
#include "util/json_depth.h"
#include "util/text_file.h"

namespace dlm {
namespace {

using test::error_of;

TEST(JsonDepth, CountsBracketsOutsideStrings) {
    EXPECT_EQ(json_nesting_depth("{}"), 1);
    EXPECT_EQ(json_nesting_depth("42"), 0);
    EXPECT_EQ(json_nesting_depth(R"({"a":[1,{"b":[[]]}]})"), 5);
    // Brackets inside strings, escaped quotes included, do not count.
    EXPECT_EQ(json_nesting_depth(R"({"a":"[[[[\"[[[["})"), 1);
    EXPECT_EQ(json_nesting_depth(R"(["\\",[]])"), 2);
    // Stops early on a deep document instead of walking it all.
    EXPECT_EQ(json_nesting_depth(std::string(1000000, '['), 64), 65);
}

TEST(JsonDepth, DeepDocumentsAreRefusedWithTheSource) {
    EXPECT_NO_THROW(check_json_depth(std::string(64, '[') + std::string(64, ']'), "x.json"));
    const std::string msg = error_of([] { check_json_depth(std::string(65, '[') + std::string(65, ']'), "x.json"); });
    EXPECT_NE(msg.find("x.json: JSON nested more than 64 levels"), std::string::npos) << msg;
}

TEST(TextFile, ReadsRegularFilesWithinTheLimit) {
    test::ScratchDir dir("dlm-text-file");
    test::write_file(dir / "a.json", "{\"x\": 1}");
    EXPECT_EQ(read_text_file(dir / "a.json", 100, "config"), "{\"x\": 1}");
    const std::string msg = error_of([&] { read_text_file(dir / "a.json", 4, "model config"); });
    EXPECT_NE(msg.find("a.json: the model config is 8 bytes, over the limit of 4 bytes"), std::string::npos) << msg;
}

TEST(TextFile, RefusesFifosDevicesFoldersAndLoops) {
    test::ScratchDir dir("dlm-text-file");
    ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
    auto msg = error_of([&] { read_text_file(dir / "pipe", 1000, "tokenizer file"); });  // would block forever
    EXPECT_NE(msg.find("pipe: not a regular file"), std::string::npos) << msg;
    msg = error_of([&] { read_text_file("/dev/zero", 1000, "prompt file"); });
    EXPECT_NE(msg.find("/dev/zero: not a regular file"), std::string::npos) << msg;
    msg = error_of([&] { read_text_file(dir.path(), 1000, "config"); });
    EXPECT_NE(msg.find("is a folder"), std::string::npos) << msg;
    std::filesystem::create_symlink(dir / "loop", dir / "loop");
    msg = error_of([&] { read_text_file(dir / "loop", 1000, "config"); });
    EXPECT_NE(msg.find("a loop of symbolic links"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("unexpected"), std::string::npos) << msg;
    msg = error_of([&] { read_text_file(dir / "absent.json", 1000, "config"); });
    EXPECT_NE(msg.find("absent.json: cannot open the config (no such file)"), std::string::npos) << msg;
}

TEST(EvalData, AnswersAreStringsAndLinesAreBounded) {
    const auto ok = parse_eval_jsonl("{\"family\":\"a\",\"prompt\":\"1+2\",\"answer\":\"3\"}\n", "e.jsonl");
    ASSERT_EQ(ok.size(), 1u);
    EXPECT_EQ(ok[0].answer, "3");
    auto msg = error_of([] { parse_eval_jsonl("{\"family\":\"a\",\"prompt\":\"1+2\",\"answer\":3}\n", "e.jsonl"); });
    EXPECT_NE(msg.find("e.jsonl:1: \"answer\" must be a string (write the number in quotes)"), std::string::npos) << msg;
    msg = error_of([] { parse_eval_jsonl("{\"x\":" + std::string(1000, '[') + std::string(1000, ']') + "}\n", "e.jsonl"); });
    EXPECT_NE(msg.find("e.jsonl:1: JSON nested more than 64 levels"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dlm
