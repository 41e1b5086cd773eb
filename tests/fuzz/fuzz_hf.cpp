// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the Hugging Face config.json importer. Any bytes, written as a config.json,
// either import as a model record that counts to finite, positive parameters and cache bytes, or
// are refused with Error(data) naming the file.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "gpuplan/analysis/inference.hpp"
#include "gpuplan/analysis/model.hpp"
#include "gpuplan/catalog/import.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/records.hpp"

namespace {
// One file for the process, rewritten for each input (the importer reads a path).
const std::string& config_path() {
  static const std::string path = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("gpuplan-fuzz-hf-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / "config.json").string();
  }();
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(config_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const gpuplan::ModelArch m = gpuplan::model_from_record(gpuplan::import_model(config_path()));
    const auto p = gpuplan::count_params(m);
    if (!(std::isfinite(p.total) && p.total > 0 && std::isfinite(p.active) && p.active > 0)) std::abort();
    const double kv = gpuplan::kv_cache_bytes(m, 2, 1, 4096, 1).value();
    if (!(std::isfinite(kv) && kv >= 0)) std::abort();
  } catch (const gpuplan::Error& e) {
    if (e.code() != gpuplan::Exit::data) std::abort();
  }
  return 0;
}
