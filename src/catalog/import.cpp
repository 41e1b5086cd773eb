// SPDX-License-Identifier: Apache-2.0
// Which importer a --model path takes, and the record it makes: TOML
// that the catalog loader checks like any catalog file.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "gpuplan/catalog/import.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/output.hpp"
#include "import_common.hpp"

namespace gpuplan {

namespace fs = std::filesystem;

void ImportedFields::put(const std::string& key, std::string toml) {
  const auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& p) { return p.first == key; });
  if (it != fields.end()) fields.erase(it);
  fields.emplace_back(key, std::move(toml));
}

// Not format_exact: a value out of range stays "inf" or "nan", which the record's check names.
void ImportedFields::set(const std::string& key, double v) {
  put(key, v == std::floor(v) && std::fabs(v) < 9e15 ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{}", v));
}

void ImportedFields::set_text(const std::string& key, const std::string& v) { put(key, toml_string(v)); }

void ImportedFields::set_flag(const std::string& key, bool v) { put(key, v ? "true" : "false"); }

bool ImportedFields::has(const std::string& key) const {
  return std::any_of(fields.begin(), fields.end(), [&](const auto& p) { return p.first == key; });
}

void import_error(const std::string& path, const std::string& key, const std::string& message) {
  fail(Exit::data, fmt::format("{}: error: {} {}", shown(path), shown(key), message));
}

double sliding_layers_of(const std::string& family, double layers, double pattern) {
  if (family == "gemma2") return std::floor(layers / 2);
  if (family.rfind("gemma3", 0) == 0) return layers - std::floor(layers / std::max(1.0, pattern));
  return layers;
}

std::string more_problems(std::size_t n) {
  return n ? fmt::format(" (and {} more problem{})", n, n > 1 ? "s" : "") : std::string();
}

bool names_a_file(const std::string& model) {
  const auto ends = [&](std::string_view s) { return model.size() >= s.size() && model.compare(model.size() - s.size(), s.size(), s) == 0; };
  std::error_code ec;
  return model.find('/') != std::string::npos || ends(".json") || ends(".gguf") || ends(".toml") || fs::is_directory(model, ec);
}

namespace {
// A config.json is a few KiB; 1 MiB bounds a hostile one (a 2 GB "config").
constexpr std::size_t max_config_bytes = 1 << 20;
// A GGUF header (with a 150,000-token vocabulary and its merges) is a few MiB; the tensors follow.
constexpr std::size_t max_gguf_header = 64u << 20;

std::string read_prefix(const std::string& path, std::size_t max) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(Exit::no_input, fmt::format("cannot read model '{}': {}", shown(path), std::strerror(errno)));
  std::string bytes(max, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(max));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

// An id for the record from the file's name (a directory's, or a config.json's directory's):
// lower case, letters, digits, '-' and '.'.
std::string id_from(const fs::path& p) {
  std::error_code ec;
  const std::string name = fs::is_directory(p, ec)         ? p.filename().string()
                           : p.filename() == "config.json" ? p.parent_path().filename().string()
                                                           : p.stem().string();
  std::string id;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    id += (std::isalnum(static_cast<unsigned char>(l)) || l == '.') ? l : '-';
  }
  while (!id.empty() && (id.front() == '-' || id.front() == '.')) id.erase(0, 1);
  if (id.size() > 64) id.resize(64);
  return id.empty() ? "imported" : id;
}

std::string toml_of(const ImportedFields& f, const std::string& id, const std::string& name, const std::string& source) {
  std::string out = fmt::format("[models.\"{}\"]\nname = {}\nfamily = {}\n", id, toml_string(name), toml_string(f.family));
  for (const auto& [k, v] : f.fields) out += k + " = " + v + "\n";
  out += "source = " + toml_string(source) + "\n";
  if (!f.caveats.empty()) {
    std::string note;
    for (const auto& c : f.caveats) note += (note.empty() ? "" : "; ") + c;
    out += "note = " + toml_string(note) + "\nestimate = true\n";
  }
  return out;
}
}  // namespace

std::string import_model_toml(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    const fs::path config = p / "config.json";
    if (!fs::exists(config, ec))
      fail(Exit::no_input, fmt::format("cannot read model '{}': a model directory holds a config.json; this one has none", shown(path)));
    std::optional<double> index_bytes;
    if (fs::exists(p / "model.safetensors.index.json", ec))
      index_bytes = safetensors_total(read_file_capped((p / "model.safetensors.index.json").string(), "safetensors index", 16u << 20));
    const ImportedFields f = import_hf_config(read_file_capped(config.string(), "config.json", max_config_bytes), config.string(), index_bytes);
    return toml_of(f, id_from(p), p.filename().string(), fmt::format("imported from {} (Hugging Face config.json{})", path,
                                                                     index_bytes ? " and model.safetensors.index.json" : ""));
  }
  const std::string ext = p.extension().string();
  if (ext == ".gguf") return toml_of(import_gguf_header(read_prefix(path, max_gguf_header), path), id_from(p), p.filename().string(), fmt::format("imported from {} (GGUF header)", path));
  if (ext == ".toml") {
    const std::string text = read_file_capped(path, "catalog", 4 << 20);
    return text;
  }
  if (ext == ".json" || p.filename() == "config.json") {
    const ImportedFields f = import_hf_config(read_file_capped(path, "config.json", max_config_bytes), path, std::nullopt);
    return toml_of(f, id_from(p), p.parent_path().filename().string().empty() ? p.filename().string() : p.parent_path().filename().string(),
                   fmt::format("imported from {} (Hugging Face config.json)", path));
  }
  fail(Exit::usage, fmt::format("model '{}' is neither a catalog id nor a file gpuplan reads: give a config.json, a directory "
                                "holding one, a .gguf file or a catalog .toml file",
                                shown(path)));
}

Record import_model(const std::string& path) {
  const std::string text = import_model_toml(path);
  Catalog one;
  std::vector<Diagnostic> diags;
  if (!one.merge_text(text, path, diags)) {
    // A line and column point into a TOML file; in a config.json or a GGUF header the record
    // was made from, the field's name says where.
    // One line: the first problem, and how many more there are.
    const bool toml = std::filesystem::path(path).extension() == ".toml";
    const Diagnostic& d = diags.front();
    fail(Exit::data, (toml ? d.text() : shown(path) + ": error: " + d.message) + more_problems(diags.size() - 1));
  }
  const std::vector<const Record*> models = one.list("models");
  if (models.size() != 1)
    fail(Exit::data, fmt::format("{}: error: a model file holds one [models.ID] record; this one has {}", shown(path), models.size()));
  return *models.front();
}

}  // namespace gpuplan
