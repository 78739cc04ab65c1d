#include "bench_report.h"

#include <ctime>

#include <fstream>
#include <sstream>

#include "compute/cpu/panel_gemm.h"
#include "compute/row_stats.h"
#include "util/error.h"

namespace dlm::cli {

namespace {

std::string begin_marker(const std::string& id) { return "<!-- dlmscope-bench:" + id + " begin -->"; }
std::string end_marker(const std::string& id) { return "<!-- dlmscope-bench:" + id + " end -->"; }

}  // namespace

MarkdownSection::MarkdownSection(std::string id, std::string title) : id_(std::move(id)), title_(std::move(title)) {}

void MarkdownSection::end_list() {
    if (in_list_) body_ += '\n';
    in_list_ = false;
}

void MarkdownSection::paragraph(const std::string& text) {
    end_list();
    body_ += text + "\n\n";
}

void MarkdownSection::bullet(const std::string& text) {
    in_list_ = true;
    body_ += "- " + text + "\n";
}

void MarkdownSection::code_block(const std::string& text, const std::string& language) {
    end_list();
    body_ += "```" + language + "\n" + text + (text.empty() || text.back() != '\n' ? "\n" : "") + "```\n\n";
}

void MarkdownSection::table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    end_list();
    auto line = [](const std::vector<std::string>& cells) {
        std::string s = "|";
        for (const auto& c : cells) s += " " + c + " |";
        return s + "\n";
    };
    body_ += line(header);
    std::string rule = "|";
    for (std::size_t i = 0; i < header.size(); ++i) rule += i == 0 ? " --- |" : " ---: |";
    body_ += rule + "\n";
    for (const auto& r : rows) {
        if (r.size() != header.size())
            throw Error("markdown table '" + title_ + "': a row has " + std::to_string(r.size()) + " cells, the header " +
                        std::to_string(header.size()));
        body_ += line(r);
    }
    body_ += '\n';
}

std::string MarkdownSection::render() const {
    std::string body = body_;
    while (!body.empty() && body.back() == '\n') body.pop_back();
    return begin_marker(id_) + "\n## " + title_ + "\n\n" + body + "\n" + end_marker(id_) + "\n";
}

std::string upsert_section(const std::string& document, const MarkdownSection& section) {
    const std::string begin = begin_marker(section.id());
    const std::string end = end_marker(section.id());
    const auto b = document.find(begin);
    if (b != std::string::npos) {
        const auto e = document.find(end, b);
        if (e != std::string::npos) {
            std::size_t after = e + end.size();
            if (after < document.size() && document[after] == '\n') ++after;
            return document.substr(0, b) + section.render() + document.substr(after);
        }
    }
    std::string out = document;
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (!out.empty()) out += '\n';
    return out + section.render();
}

void write_section(const std::filesystem::path& file, const MarkdownSection& section) {
    std::string document;
    if (std::filesystem::exists(file)) {
        std::ifstream in(file, std::ios::binary);
        if (!in) throw Error("cannot read '" + file.string() + "'");
        std::ostringstream s;
        s << in.rdbuf();
        document = s.str();
    } else {
        document = "# dlmscope benchmarks\n\nSections are written by `dlmscope-cli bench`; each is replaced "
                   "when its benchmark runs again.\n";
    }
    const std::string updated = upsert_section(document, section);
    if (file.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(file.parent_path(), ec);
    }
    // Write a sibling then rename, so an interrupted run never leaves a truncated report.
    const std::filesystem::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write '" + tmp.string() + "'");
        out << updated;
        out.flush();
        if (!out) throw Error("failed writing '" + tmp.string() + "'");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, file, ec);
    if (ec) throw Error("cannot replace '" + file.string() + "': " + ec.message());
}

std::string backend_label(std::string_view backend_name) {
    if (backend_name == "cpu")
        return "CPU backend (fp32, weight GEMMs " +
               (cpu::panel_width() > 0 ? "in panels packed at load, " + std::string(cpu::panel_isa())
                                       : std::string("in OpenBLAS sgemm")) +
               ", row statistics " + std::string(row_stats_isa()) + ")";
    if (backend_name == "cuda") return "CUDA backend (bf16 weights, cuBLAS with fp32 accumulation)";
    return std::string(backend_name) + " backend";
}

std::string table_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

}  // namespace dlm::cli
