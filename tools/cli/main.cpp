// dlmscope-cli: headless runs, evaluation, benchmarks and trace tools over the same engine as
// the app. Every failure ends as one "dlmscope-cli: error: ..." line on stderr and a non-zero
// exit status; nothing escapes as an uncaught exception.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "commands.h"
#include "util/error.h"

namespace {

using namespace dlm::cli;

constexpr Subcommand kSubcommands[] = {
    {"inspect", "describe a checkpoint folder (architecture, tensors, tokenizer)", inspect_main},
    {"flops", "algorithmic FLOPs of a denoising step for a config.json (SureLock formula)", flops_main},
    {"run", "generate text from a prompt with a decoding strategy", run_main},
    {"eval", "exact-match accuracy on an evaluation split (jsonl)", eval_main},
    {"bench", "benchmarks (CPU forward, CUDA step, strategies); writes a markdown report", bench_main},
    {"make-checkpoint", "write a random-weight LLaDA checkpoint (e.g. LLaDA-8B dims, for benchmarks)", make_checkpoint_main},
    {"trace", "show a recorded trace, or compare two (determinism, record/replay)", trace_main},
    {"settings", "every decode setting and strategy parameter: type, default, range, meaning", settings_main},
};

void print_usage(std::ostream& out) {
    out << "usage: dlmscope-cli <command> [options]\n\n"
           "Runs masked diffusion language models headlessly (the same engine as the dlmscope app).\n\n"
           "commands:\n";
    for (const auto& c : kSubcommands) {
        std::string name = c.name;
        // Summaries line up after the longest command name.
        out << "  " << name << std::string(name.size() < 17 ? 17 - name.size() : 1, ' ') << c.summary << '\n';
    }
    out << "\n'dlmscope-cli <command> --help' describes a command's options.\n"
           "  --version  print the version\n\n"
           "run, eval and bench take --backend auto|cpu|cuda (default auto: the CUDA backend when this\n"
           "build has it and a GPU is usable, else the CPU; see 'dlmscope-cli run --help').\n";
}

// One line, whatever the message holds (multi-line engine messages are joined).
void report_error(std::string_view message) {
    std::string line(message);
    for (char& ch : line)
        if (ch == '\n' || ch == '\r') ch = ' ';
    std::cerr << "dlmscope-cli: error: " << line << std::endl;
}

std::string command_names() {
    std::string names;
    for (const auto& c : kSubcommands) names += (names.empty() ? "" : ", ") + std::string(c.name);
    return names;
}

int dispatch(const std::vector<std::string>& words) {
    if (words.empty()) throw UsageError("no command given (commands: " + command_names() + "; dlmscope-cli --help describes them)");
    const std::string& command = words[0];
    if (command == "--help" || command == "-h" || command == "help") {
        print_usage(std::cout);
        return kExitOk;
    }
    if (command == "--version" || command == "version") {
        std::cout << "dlmscope-cli " << DLM_VERSION << '\n';
        return kExitOk;
    }
    for (const auto& c : kSubcommands)
        if (command == c.name) return c.run(std::span<const std::string>(words).subspan(1));
    throw UsageError("unknown command '" + command + "' (commands: " + command_names() + ")");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::vector<std::string> words(argv + 1, argv + argc);
        const int status = dispatch(words);
        std::cout.flush();
        if (!std::cout) {
            report_error("could not write the output (closed pipe or full disk)");
            return kExitFailure;
        }
        return status;
    } catch (const UsageError& e) {
        report_error(e.what());
        return kExitUsage;
    } catch (const dlm::Error& e) {
        report_error(e.what());
        return kExitFailure;
    } catch (const std::bad_alloc&) {
        report_error("out of memory");
        return kExitFailure;
    } catch (const std::exception& e) {
        report_error(std::string("unexpected failure: ") + e.what());
        return kExitFailure;
    } catch (...) {
        report_error("unexpected failure (unknown exception)");
        return kExitFailure;
    }
}
