// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the importers share: the fields of a model record as they build it, and the one error
// form for a field that is missing or wrong.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

struct ImportedFields {
  std::string family;
  // Key and TOML value text, in the order set (a later set of a key replaces it).
  std::vector<std::pair<std::string, std::string>> fields;
  void set(const std::string& key, double v);
  void set_text(const std::string& key, const std::string& v);
  void set_flag(const std::string& key, bool v);
  bool has(const std::string& key) const;
  // Sets the key to TOML value text, replacing an earlier one.
  void put(const std::string& key, std::string toml);
  // What the record cannot describe or had to assume; written as its note, and the record is
  // then marked an estimate.
  std::vector<std::string> caveats;
};

// The layers a family slides its window over: Gemma 2 every other one, Gemma 3 all but one in
// `pattern` (its sliding_window_pattern), any other (Mistral) every layer.
double sliding_layers_of(const std::string& family, double layers, double pattern);

// "PATH: error: KEY MESSAGE" (exit 65).
[[noreturn]] void import_error(const std::string& path, const std::string& key, const std::string& message);

// The fields a Hugging Face config.json describes (index_bytes: model.safetensors.index.json's
// total_size, where there is one).
ImportedFields import_hf_config(std::string_view text, const std::string& path, std::optional<double> index_bytes);
// model.safetensors.index.json's metadata.total_size (the checkpoint's bytes), where the file
// is JSON and gives a positive one.
std::optional<double> safetensors_total(std::string_view index_text);
// The fields a GGUF file's header (its first bytes) describes.
ImportedFields import_gguf_header(std::string_view bytes, const std::string& path);

}  // namespace gpuplan
