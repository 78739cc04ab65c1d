#pragma once
// The subcommands of dlmscope-cli. Each lives in its own cmd_<name>.cpp; main.cpp dispatches.
// A subcommand returns the process exit status and throws (dlm::Error, cli::UsageError) for
// anything it refuses; main() turns exceptions into one stderr line.
#include <span>
#include <string>

#include "args.h"

namespace dlm::cli {

using CommandMain = int (*)(std::span<const std::string> args);

struct Subcommand {
    const char* name;
    const char* summary;
    CommandMain run;
};

int inspect_main(std::span<const std::string> args);
int flops_main(std::span<const std::string> args);
int run_main(std::span<const std::string> args);
int eval_main(std::span<const std::string> args);
int bench_main(std::span<const std::string> args);
int make_checkpoint_main(std::span<const std::string> args);  // random-weight checkpoint folders
int trace_main(std::span<const std::string> args);  // "trace show" / "trace compare"
int settings_main(std::span<const std::string> args);  // the settings schema

// Exit statuses shared by all subcommands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // runtime failure, or "traces differ"
inline constexpr int kExitUsage = 2;    // bad invocation or invalid settings

}  // namespace dlm::cli
