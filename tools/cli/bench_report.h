#pragma once
// docs/benchmarks.md is made of sections, each owned by one benchmark and delimited by HTML
// comment markers, so that `bench` can rewrite its own section and leave the others (strategy
// presets, GPU runs, ...) untouched:
//   <!-- dlmscope-bench:forward-cpu begin -->  ...  <!-- dlmscope-bench:forward-cpu end -->
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dlm::cli {

// One markdown section being written.
class MarkdownSection {
public:
    MarkdownSection(std::string id, std::string title);
    const std::string& id() const { return id_; }

    void paragraph(const std::string& text);
    void bullet(const std::string& text);
    void code_block(const std::string& text, const std::string& language = "");
    // A table; every row must have as many cells as the header (dlm::Error otherwise).
    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
    // "## title" followed by the blocks, between the section's markers.
    std::string render() const;

private:
    std::string id_;
    std::string title_;
    std::string body_;
    bool in_list_ = false;
    void end_list();
};

// Replaces the section with the same id in `document` (markers included) or appends it.
std::string upsert_section(const std::string& document, const MarkdownSection& section);
// Reads `file` (empty if absent; a "# dlmscope benchmarks" title is added to a new file),
// upserts the section and writes it back. Throws dlm::Error naming the file on I/O failure.
void write_section(const std::filesystem::path& file, const MarkdownSection& section);

// "YYYY-MM-DD HH:MM UTC" now: when a section was measured.
std::string utc_now();

// The backend as every report names it ("cpu", "cuda", else "<name> backend"); the CPU's label
// names the build of the row statistics it runs.
std::string backend_label(std::string_view backend_name);

// Escapes '|' so that free text can go into a table cell.
std::string table_cell(const std::string& text);

}  // namespace dlm::cli
