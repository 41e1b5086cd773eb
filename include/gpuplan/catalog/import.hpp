#pragma once
// Models the user has, as catalog records: a Hugging Face config.json (or a directory holding
// one, with model.safetensors.index.json where present), a GGUF file (its header alone), or a
// catalog TOML file holding one model record. Every importer writes the same record a catalog
// file would hold, checked by the same schema; nothing downstream knows where it came from.
#include <cstdint>
#include <string>
#include <vector>

#include "gpuplan/catalog/catalog.hpp"

namespace gpuplan {

// Whether a --model value names a file rather than a catalog id: it has a '/', or ends in
// .json, .gguf or .toml.
bool names_a_file(const std::string& model);

// The record `path` describes, as catalog TOML ("[models.ID]" and its fields, source included),
// for `gpuplan catalog import` and for the loader below. Error(no_input) when the path cannot be
// read (a directory without config.json), Error(data) naming the file and the field when it is
// not a model this tool can count (a missing or negative field, a truncated GGUF).
std::string import_model_toml(const std::string& path);

// The model record at `path`, checked as a catalog file's would be (its position in messages is
// the file's). Error(no_input) or Error(data) as above.
Record import_model(const std::string& path);

// ---- GGUF, read from its published specification (ggml docs/gguf.md), header only.

// A tensor's ggml type: elements per block and bytes per block (ggml-common.h); {0, 0} for a
// type this reader does not know.
struct GgmlType {
  std::uint32_t id;
  const char* name;
  std::uint32_t block, bytes;
};
const GgmlType* ggml_type(std::uint32_t id);

struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> dims;
  std::uint32_t type = 0;
  double elements() const;
  double bytes() const;  // elements / block x bytes per block
};
struct GgufValue {
  enum class Kind { integer, real, boolean, text, array } kind = Kind::integer;
  double number = 0;
  std::string text;
  std::uint64_t length = 0;  // an array's element count (its elements are not kept)
};
struct GgufHeader {
  std::uint32_t version = 0;
  std::vector<std::pair<std::string, GgufValue>> kv;
  std::vector<GgufTensor> tensors;
  const GgufValue* find(const std::string& key) const;
  double weight_bytes() const;     // the sum over the tensors' types and shapes
  double weight_elements() const;  // the parameters they hold
};
// Reads a GGUF header from the bytes of a file's start. Bounded: at most 4 MiB of metadata
// strings, 100,000 keys and tensors, arrays skipped without allocating by their stated length.
// Error(data) "PATH: error: ..." on a truncated or malformed header.
GgufHeader parse_gguf(std::string_view bytes, const std::string& path);

}  // namespace gpuplan
