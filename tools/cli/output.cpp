#include "output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace dlm::cli {

std::string format_flops(double flops) {
    static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    char sci[64];
    std::snprintf(sci, sizeof sci, "%.4e", flops);
    int p = 0;
    double scaled = flops;
    while (std::fabs(scaled) >= 1000.0 && p < 6) {
        scaled /= 1000.0;
        ++p;
    }
    char si[64];
    std::snprintf(si, sizeof si, "%.2f %sFLOP", scaled, kPrefixes[p]);
    return std::string(sci) + " (" + si + ")";
}

std::string format_bytes(uint64_t bytes) {
    static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1000.0 && u < 4) {
        v /= 1000.0;
        ++u;
    }
    char buf[96];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.2f %s (%llu bytes)", v, kUnits[u], static_cast<unsigned long long>(bytes));
    return buf;
}

std::string format_grouped(long long n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string format_fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

void print_warning(const std::string& message) { std::cerr << "warning: " << message << '\n'; }
void print_note(const std::string& message) { std::cerr << "note: " << message << '\n'; }

std::string cost_lines(const TraceSummary& s, int gen_length, int label_width) {
    std::ostringstream out;
    const auto line = [&](const std::string& label, const std::string& value) {
        out << label << std::string(static_cast<std::size_t>(std::max<int>(1, label_width - int(label.size()))), ' ')
            << value << '\n';
    };
    line("paper FLOPs", format_flops(s.paper_flops));
    if (s.guider_flops > 0) line("guider FLOPs", format_flops(s.guider_flops));
    line("dense", format_flops(s.paper_flops_dense) + " (the steps taken, every row)");
    line("baseline", format_flops(s.steps > 0 ? baseline_sampler_flops(s.paper_flops_dense / s.steps, gen_length) : 0.0) +
                         " (one dense forward per generated position)");
    line("ratio", format_fixed(s.flops_ratio(), 4) + " of dense, " + format_fixed(s.flops_ratio_to_baseline(gen_length), 4) +
                      " of the baseline");
    line("LM head", format_flops(s.lm_head_flops));
    line("rows", std::to_string(s.rows_computed) + " of " + std::to_string(s.rows_total) + " computed");
    return out.str();
}

}  // namespace dlm::cli
