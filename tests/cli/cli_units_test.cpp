// The CLI's helpers without a process: argument parsing, answer extraction, balanced limits and
// the markdown section writer.
#include <gtest/gtest.h>

#include <set>

#include "args.h"
#include "bench_report.h"
#include "cli/cli_test_support.h"
#include "eval_data.h"

namespace dlm::cli {
namespace {

CommandSpec demo_spec() {
    return CommandSpec{
        "demo",
        "[options] FILE",
        "A demo command.",
        "",
        {{"model", "DIR", "a folder"}, {"set", "K=V", "a setting", true}, {"json", "", "a flag"}, {"n", "N", "a number"}},
        0,
        1,
        "FILE",
    };
}

ParsedArgs parse(std::vector<std::string> words) { return parse_args(demo_spec(), words); }

std::string usage_error(std::vector<std::string> words) {
    try {
        parse(std::move(words));
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(CliArgs, ValuesFlagsAndPositionals) {
    const auto a = parse({"--model", "m1", "--json", "--set", "a=1", "--set=b=2", "file.txt", "--n=-3"});
    EXPECT_EQ(a.get("model"), "m1");
    EXPECT_TRUE(a.flag("json"));
    EXPECT_EQ(a.all("set"), (std::vector<std::string>{"a=1", "b=2"}));
    EXPECT_EQ(a.positionals(), std::vector<std::string>{"file.txt"});
    EXPECT_EQ(a.get_int("n", -10, 10), -3);
    EXPECT_FALSE(a.has("missing"));
    EXPECT_EQ(a.get_or("missing", "fallback"), "fallback");
    EXPECT_FALSE(a.help_requested());
}

TEST(CliArgs, ValueMayLookLikeAnOptionOrBeEmpty) {
    EXPECT_EQ(parse({"--model", "--json"}).get("model"), "--json");
    EXPECT_EQ(parse({"--model="}).get("model"), "");
    EXPECT_EQ(parse({"--", "--json"}).positionals(), std::vector<std::string>{"--json"});
    EXPECT_EQ(parse({"-5"}).positionals(), std::vector<std::string>{"-5"});
}

TEST(CliArgs, MistakesAreNamed) {
    EXPECT_NE(usage_error({"--modle", "x"}).find("unknown option '--modle'"), std::string::npos);
    EXPECT_NE(usage_error({"-m", "x"}).find("unknown option '-m'"), std::string::npos);
    EXPECT_NE(usage_error({"--model"}).find("--model requires a value"), std::string::npos);
    EXPECT_NE(usage_error({"--json=1"}).find("--json does not take a value"), std::string::npos);
    EXPECT_NE(usage_error({"--model", "a", "--model", "b"}).find("more than once"), std::string::npos);
    EXPECT_NE(usage_error({"a", "b"}).find("unexpected argument 'b'"), std::string::npos);
    EXPECT_THROW(parse({"--n", "12x"}).get_int("n", 0, 100), UsageError);
    EXPECT_THROW(parse({"--n", "101"}).get_int("n", 0, 100), UsageError);
    EXPECT_THROW(parse({"--n", "-1"}).get_u64("n"), UsageError);
    EXPECT_EQ(parse({"--n", "18446744073709551615"}).get_u64("n"), 18446744073709551615ull);
    EXPECT_THROW(parse({}).require("model"), UsageError);
    EXPECT_THROW(split_key_value("novalue", "--set"), UsageError);
    EXPECT_THROW(split_key_value("=1", "--set"), UsageError);
    EXPECT_EQ(split_key_value("a.b=c=d", "--set"), (std::pair<std::string, std::string>{"a.b", "c=d"}));
}

TEST(CliArgs, HelpWinsOverEverythingElse) {
    EXPECT_TRUE(parse({"--bogus", "--help"}).help_requested());
    EXPECT_TRUE(parse({"-h"}).help_requested());
    // ...unless it is after "--", where it is a positional.
    EXPECT_FALSE(parse({"--", "--help"}).help_requested());
    const std::string help = format_help(demo_spec());
    EXPECT_NE(help.find("usage: dlmscope-cli demo [options] FILE"), std::string::npos) << help;
    EXPECT_NE(help.find("--set K=V"), std::string::npos);
    EXPECT_NE(help.find("(repeatable)"), std::string::npos);
}

TEST(CliEvalData, AnswerIsAfterTheLastMarker) {
    EXPECT_EQ(extract_answer("work: 2 + 3 = 5\n#### 5"), "5");
    EXPECT_EQ(extract_answer("#### 4\nno wait\n####  7  \nextra line"), "7");
    EXPECT_EQ(extract_answer("####"), "");
    EXPECT_EQ(extract_answer("no marker 5"), "");
    EXPECT_TRUE(answer_matches(" 12 ", "12"));
    EXPECT_FALSE(answer_matches("12.0", "12"));
    EXPECT_FALSE(answer_matches("", ""));  // an empty prediction is never right
}

TEST(CliEvalData, ReadsJsonlAndBalancesLimits) {
    test::ScratchDir dir("dlm-cli-units");
    const auto file = dir.path() / "d.jsonl";
    cli_test::write_text(file,
                         "{\"family\": \"a\", \"prompt\": \"p1\", \"answer\": \"1\"}\n"
                         "{\"family\": \"a\", \"prompt\": \"p2\", \"answer\": \"2\"}\n"
                         "{\"family\": \"a\", \"prompt\": \"p3\", \"answer\": \"3\"}\n"
                         "{\"family\": \"b\", \"prompt\": \"q1\", \"answer\": \"x\"}\n");
    const auto all = read_eval_jsonl(file);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[1].answer, "2");
    EXPECT_EQ(all[3].line, 4);
    const auto two = take_balanced(all, 2);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[0].prompt, "p1");
    EXPECT_EQ(two[1].prompt, "q1");
    EXPECT_EQ(take_balanced(all, 3)[2].prompt, "p2");
    EXPECT_EQ(take_balanced(all, 0).size(), 4u);

    // A number is not an answer: 1e2 or 12.50 would compare as their printed form.
    cli_test::write_text(file, "{\"family\": \"a\", \"prompt\": \"p2\", \"answer\": 2}\n");
    try {
        read_eval_jsonl(file);
        ADD_FAILURE() << "a numeric answer was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("d.jsonl:1: \"answer\" must be a string"), std::string::npos) << e.what();
    }

    cli_test::write_text(file, "{\"family\": \"a\", \"prompt\": \"p1\", \"answer\": \"1\"}\n[1, 2]\n");
    try {
        read_eval_jsonl(file);
        ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("d.jsonl:2"), std::string::npos) << e.what();
    }
}

TEST(CliEvalData, ReadsTheExamplesCanvasLength) {
    test::ScratchDir dir("dlm-cli-units");
    const auto file = dir.path() / "g.jsonl";
    cli_test::write_text(file,
                         "{\"family\": \"a\", \"prompt\": \"p\", \"answer\": \"1\", \"gen_length\": 48, \"title\": \"Sums\"}\n"
                         "{\"family\": \"a\", \"prompt\": \"q\", \"answer\": \"2\"}\n");
    const auto all = read_eval_jsonl(file);
    EXPECT_EQ(all[0].gen_length, 48);
    EXPECT_EQ(all[1].gen_length, 0);  // not given: the command line's length applies
    EXPECT_EQ(all[0].title, "Sums");
    EXPECT_EQ(all[1].title, "");
    cli_test::write_text(file, "{\"family\": \"a\", \"prompt\": \"p\", \"answer\": \"1\", \"title\": 4}\n");
    EXPECT_THROW(read_eval_jsonl(file), Error);
    cli_test::write_text(file, "{\"family\": \"a\", \"prompt\": \"p\", \"answer\": \"1\", \"gen_length\": -3}\n");
    EXPECT_THROW(read_eval_jsonl(file), Error);
}

TEST(CliEvalData, ShippedSplitsAreWellFormed) {
    // Every split the CLI and the app read: each row has a family, a prompt, an answer and a canvas
    // long enough to be useful; the worked examples cover every scored family once.
    const auto dir = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "eval";
    std::set<std::string> test_families;
    for (const auto& e : read_eval_jsonl(dir / "test.jsonl")) test_families.insert(e.family);
    for (const char* split : {"test", "heldout", "paraphrase", "examples"}) {
        const auto rows = read_eval_jsonl(dir / (std::string(split) + ".jsonl"));
        std::set<std::string> families;
        for (const auto& e : rows) {
            EXPECT_GE(e.gen_length, 32) << split << ":" << e.line;
            EXPECT_FALSE(e.answer.empty()) << split << ":" << e.line;
            families.insert(e.family);
        }
        EXPECT_EQ(families, test_families) << split;
    }
    const auto examples = read_eval_jsonl(dir / "examples.jsonl");
    EXPECT_EQ(examples.size(), test_families.size());
    // The paraphrases are worded unlike any template: none is a prompt of the test split.
    std::set<std::string> test_prompts;
    for (const auto& e : read_eval_jsonl(dir / "test.jsonl")) test_prompts.insert(e.prompt);
    for (const auto& e : read_eval_jsonl(dir / "paraphrase.jsonl")) EXPECT_FALSE(test_prompts.count(e.prompt)) << e.prompt;
}

TEST(CliEvalData, FindsTheRepositorySplits) {
    // resources/eval/ ships with the repository (tools/train/corpus.py --write-eval writes it).
    const std::filesystem::path repo_split = std::filesystem::path(DLM_SOURCE_DIR) / "resources/eval/test.jsonl";
    ASSERT_TRUE(std::filesystem::exists(repo_split)) << repo_split << " is missing";
    const auto found = find_eval_split("test", std::filesystem::path(DLM_SOURCE_DIR) / "resources/models/tiny-mdlm");
    EXPECT_TRUE(std::filesystem::equivalent(found, repo_split)) << found;
    EXPECT_THROW(find_eval_split("nonexistent-split", "/nowhere/model"), Error);
}

TEST(CliBenchReport, SectionsAreReplacedInPlace) {
    MarkdownSection s("forward-cpu", "CPU forward");
    s.paragraph("Measured on 2 cores.");
    s.table({"N", "rows/s"}, {{"128", "1000"}, {"256", "900"}});
    const std::string first = s.render();
    EXPECT_NE(first.find("<!-- dlmscope-bench:forward-cpu begin -->\n## CPU forward"), std::string::npos) << first;
    EXPECT_NE(first.find("| N | rows/s |\n| --- | ---: |\n| 128 | 1000 |"), std::string::npos) << first;
    EXPECT_THROW(s.table({"a", "b"}, {{"1"}}), Error);

    const std::string doc = "# Title\n\nintro\n";
    const std::string once = upsert_section(doc, s);
    EXPECT_EQ(once.rfind("# Title\n\nintro\n\n", 0), 0u);
    MarkdownSection other("presets", "Strategy presets");
    other.bullet("baseline");
    const std::string two = upsert_section(once, other);

    MarkdownSection updated("forward-cpu", "CPU forward");
    updated.paragraph("Measured again.");
    const std::string replaced = upsert_section(two, updated);
    EXPECT_EQ(replaced.find("Measured on 2 cores."), std::string::npos);
    EXPECT_NE(replaced.find("Measured again."), std::string::npos);
    EXPECT_NE(replaced.find("- baseline"), std::string::npos);  // the other section survives
    EXPECT_LT(replaced.find("Measured again."), replaced.find("Strategy presets"));  // in place
    EXPECT_EQ(table_cell("a|b\nc"), "a\\|b c");

    test::ScratchDir dir("dlm-cli-units");
    const auto file = dir.path() / "docs" / "benchmarks.md";
    write_section(file, s);
    write_section(file, updated);
    const std::string written = cli_test::read_text(file);
    EXPECT_EQ(written.rfind("# dlmscope benchmarks", 0), 0u);
    EXPECT_NE(written.find("Measured again."), std::string::npos);
    EXPECT_EQ(written.find("Measured on 2 cores."), std::string::npos);
}

}  // namespace
}  // namespace dlm::cli
