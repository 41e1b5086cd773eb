#pragma once
#include <string_view>
#include <vector>

namespace gpuplan {
struct EmbeddedFile {
  std::string_view name;  // e.g. "accelerators.toml"
  std::string_view text;
};
// The shipped catalogs/*.toml, compiled in at build time (cmake/EmbedCatalogs.cmake).
const std::vector<EmbeddedFile>& builtin_catalogs();
}  // namespace gpuplan
