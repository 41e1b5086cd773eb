// SPDX-License-Identifier: Apache-2.0
#pragma once
// The XDG base directories (freedesktop.org Base Directory Specification 0.8), read in one
// place: a variable that is unset, empty or relative is ignored in favour of its default.
#include <string>
#include <vector>

namespace gpuplan {

// The non-empty entries of a colon-separated list (PATH style); none for a null pointer.
std::vector<std::string> split_path_list(const char* list);
// $XDG_CONFIG_HOME, else $HOME/.config; empty when neither is known.
std::string xdg_config_home();
// $XDG_DATA_HOME, else $HOME/.local/share; empty when neither is known.
std::string xdg_data_home();
// $XDG_DATA_DIRS (else /usr/local/share:/usr/share), most important first, relative entries dropped.
std::vector<std::string> xdg_data_dirs();

}  // namespace gpuplan
