// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/xdg.hpp"

#include <cstdlib>

namespace gpuplan {
namespace {

std::string absolute_env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v == '/' ? std::string(v) : std::string();
}

// A relative $HOME names no place (the XDG Base Directory specification's paths are absolute):
// it is ignored, as a relative XDG variable is.
std::string under_home(const char* rest) {
  const std::string home = absolute_env("HOME");
  return home.empty() ? std::string() : home + rest;
}

}  // namespace

std::string xdg_config_home() {
  std::string d = absolute_env("XDG_CONFIG_HOME");
  return d.empty() ? under_home("/.config") : d;
}

std::string xdg_data_home() {
  std::string d = absolute_env("XDG_DATA_HOME");
  return d.empty() ? under_home("/.local/share") : d;
}

std::vector<std::string> split_path_list(const char* list) {
  std::vector<std::string> out;
  if (!list) return out;
  const std::string s(list);
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(':', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> xdg_data_dirs() {
  const char* v = std::getenv("XDG_DATA_DIRS");
  std::vector<std::string> out;
  for (auto& d : split_path_list(v && *v ? v : "/usr/local/share:/usr/share"))
    if (d.front() == '/') out.push_back(std::move(d));
  return out;
}

}  // namespace gpuplan
