// SPDX-License-Identifier: Apache-2.0
#pragma once
// Models the user has, as catalog records: a Hugging Face config.json (or a directory holding
// one, with model.safetensors.index.json where present), a GGUF file (its header alone), or a
// catalog TOML file holding one model record. Every importer writes the same record a catalog
// file would hold, checked by the same schema; nothing downstream knows where it came from.
#include <string>

#include "gpuplan/catalog/catalog.hpp"

namespace gpuplan {

// Whether a --model value names a file rather than a catalog id: it has a '/', or ends in
// .json, .gguf or .toml.
bool names_a_file(const std::string& model);
// " (and N more problems)" when N > 0, else empty: a record file's error stays one line
// ('gpuplan catalog check' lists them all for a .toml file).
std::string more_problems(std::size_t n);

// The record `path` describes, as catalog TOML ("[models.ID]" and its fields, source included),
// for `gpuplan catalog import` and for the loader below. Error(no_input) when the path cannot be
// read (a directory without config.json), Error(data) naming the file and the field when it is
// not a model this tool can count (a missing or negative field, a truncated GGUF).
std::string import_model_toml(const std::string& path);

// The model record at `path`, checked as a catalog file's would be (its position in messages is
// the file's). Error(no_input) or Error(data) as above.
Record import_model(const std::string& path);

}  // namespace gpuplan
