#pragma once
// A checkpoint folder's files may be symbolic links (a Hugging Face cache is all links), but a
// link may not lead out of the folder: a model.safetensors pointing at /etc/passwd is refused
// before anything reads it. Allowed targets: inside the folder itself, or, for a Hugging Face
// cache snapshot (<repo>/snapshots/<revision>/), inside that repository's cache folder, where
// the blobs the links point to live.
#include <filesystem>

namespace dlm {

// Throws dlm::Error naming the link, its target and the folder for the first link that leaves.
void check_folder_links(const std::filesystem::path& dir);

}  // namespace dlm
