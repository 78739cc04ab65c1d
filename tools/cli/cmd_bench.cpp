// dlmscope-cli bench: runs benchmarks and writes each as its own section of a markdown report
// (docs/benchmarks.md). Sections are registered in kBenchmarks; adding one (strategy presets,
// GPU runs) means adding a function that measures and fills a MarkdownSection.
#include <sys/utsname.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>

#include "args.h"
#include "bench_report.h"
#include "commands.h"
#include "compute/forward_bench.h"
#include "output.h"

namespace dlm::cli {

namespace {

const CommandSpec& bench_spec() {
    static const CommandSpec spec{
        "bench",
        "[--out FILE] [--reps N] [--threads N] [--section ID ...]",
        "Run the benchmarks and write their sections of a markdown report.",
        "Sections:\n"
        "  forward-cpu  CPU forward rows/s at N = 128, 256, 512 (random llada-family model, 4 layers,\n"
        "               d = 512) and the sparse/dense time ratio at 25/50/75% of rows computed.\n"
        "Each section replaces its previous version in the report; other sections are kept.",
        {
            {"out", "FILE", "markdown report to update (default docs/benchmarks.md; '-' prints it)"},
            {"reps", "N", "timed repetitions per measurement, median reported (default 5)"},
            {"threads", "N", "CPU threads (default: all cores)"},
            {"section", "ID", "run only this section", true},
        },
        0,
        0,
        "",
    };
    return spec;
}

// What every section records about where and how it was measured.
struct BenchContext {
    std::string command;  // the exact command line, for the report
    int reps = 5;
    int threads = 0;
};

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            if (auto colon = line.find(':'); colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(' '));
                return name;
            }
    return "unknown CPU";
}

std::string os_name() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown OS";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

void machine_bullets(MarkdownSection& s, int threads_used) {
    s.bullet("machine: " + table_cell(cpu_model()) + ", " + std::to_string(std::thread::hardware_concurrency()) +
             " hardware threads, " + std::to_string(threads_used) + " used; " + os_name());
    s.bullet("engine: dlmscope " DLM_VERSION ", CPU backend (fp32, OpenBLAS sgemm); measured " + utc_now());
}

std::string pct(double v) { return format_fixed(100.0 * v, 1) + "%"; }

MarkdownSection forward_cpu(const BenchContext& ctx) {
    ForwardBenchOptions o;
    o.reps = ctx.reps;
    o.threads = ctx.threads;
    o.progress = [](const std::string& line) { std::cerr << "bench: " << line << std::endl; };
    const ForwardBenchResult r = run_forward_bench(o);
    const RandomLladaSpec& m = r.model;

    MarkdownSection s("forward-cpu", "CPU forward pass: throughput and token-sparse scaling");
    s.paragraph(
        "One forward pass of a random llada-family model (bidirectional attention, SwiGLU, untied LM head) over "
        "a canvas of N positions. *Dense* computes every row; *sparse* computes a random subset of rows and reads "
        "the others' K/V from the cache (design.md §3), the mechanism behind SureLock locks, FreeCache blocks and "
        "COVER. Times are the median of " +
        std::to_string(r.reps) + " repetitions after a warm-up.");
    machine_bullets(s, r.threads);
    s.bullet("model: " + std::to_string(m.n_layers) + " layers, d_model " + std::to_string(m.d_model) + ", " +
             std::to_string(m.n_heads) + " heads (head dim " + std::to_string(m.d_model / m.n_heads) + "), d_ff " +
             std::to_string(m.d_ff) + ", vocabulary " + std::to_string(m.vocab_size) + ", fp32 weights");
    s.paragraph("Command:");
    s.code_block(ctx.command, "sh");

    std::vector<std::vector<std::string>> dense;
    for (const auto& p : r.points)
        dense.push_back({std::to_string(p.n), format_fixed(p.dense_seconds * 1e3, 2),
                         format_fixed(p.dense_rows_per_s, 0), format_fixed(p.dense_gflops, 1)});
    s.paragraph("**Dense forward** (GFLOP/s counts the design.md §6 GEMMs plus the LM head):");
    s.table({"N", "ms / forward", "rows / s", "GFLOP/s"}, dense);

    std::vector<std::vector<std::string>> sparse;
    double worst_excess = 0.0;
    for (const auto& p : r.points)
        for (const auto& sp : p.sparse) {
            const double ideal = p.n > 0 ? double(sp.rows) / p.n : 0.0;
            worst_excess = std::max(worst_excess, sp.ratio - ideal);
            sparse.push_back({std::to_string(p.n), std::to_string(sp.rows) + " (" + pct(ideal) + ")",
                              format_fixed(sp.seconds * 1e3, 2), format_fixed(sp.ratio, 3), format_fixed(ideal, 3),
                              format_fixed(ideal > 0 ? sp.ratio / ideal : 0.0, 2)});
        }
    s.paragraph(
        "**Sparse / dense time.** With M of N rows computed every GEMM term shrinks by M/N (attention is M x N), so "
        "the ideal time ratio is the share of rows computed; *ratio / ideal* above 1 is the fixed cost that does "
        "not shrink (attention over all N cached keys, gathers, thread start-up).");
    s.table({"N", "rows computed", "ms / forward", "time ratio", "ideal (M/N)", "ratio / ideal"}, sparse);
    s.paragraph("Largest gap between measured ratio and ideal share: " + format_fixed(worst_excess, 3) + ".");
    return s;
}

struct Benchmark {
    const char* id;
    MarkdownSection (*run)(const BenchContext&);
};

constexpr Benchmark kBenchmarks[] = {
    {"forward-cpu", forward_cpu},
};

std::string quoted(const std::string& word) {
    if (!word.empty() && word.find_first_of(" \t'\"$\\`|&;<>()*?") == std::string::npos) return word;
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

int bench_main(std::span<const std::string> args) {
    const CommandSpec& spec = bench_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    BenchContext ctx;
    ctx.reps = static_cast<int>(a.get_int("reps", 1, 1000).value_or(5));
    ctx.threads = static_cast<int>(a.get_int("threads", 0, 4096).value_or(0));
    ctx.command = "dlmscope-cli bench";
    for (const auto& w : args) {
        ctx.command += ' ';
        ctx.command += quoted(w);
    }
    const std::string out = a.get_or("out", "docs/benchmarks.md");

    std::vector<const Benchmark*> selected;
    for (const auto& id : a.all("section")) {
        const Benchmark* found = nullptr;
        for (const auto& b : kBenchmarks)
            if (id == b.id) found = &b;
        if (!found) {
            std::string known;
            for (const auto& b : kBenchmarks) {
                if (!known.empty()) known += ", ";
                known += b.id;
            }
            throw UsageError("unknown bench section '" + id + "' (known: " + known + ")");
        }
        selected.push_back(found);
    }
    if (selected.empty())
        for (const auto& b : kBenchmarks) selected.push_back(&b);

    for (const Benchmark* b : selected) {
        const MarkdownSection section = b->run(ctx);
        if (out == "-") {
            std::cout << section.render() << '\n';
        } else {
            write_section(out, section);
            std::cout << section.render() << "\nwrote section '" << b->id << "' to " << out << '\n';
        }
    }
    return kExitOk;
}

}  // namespace dlm::cli
