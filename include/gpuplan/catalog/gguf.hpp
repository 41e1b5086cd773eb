// SPDX-License-Identifier: Apache-2.0
#pragma once
// GGUF, read from its published specification (ggml docs/gguf.md), header only: what a model
// file says of its architecture, and each tensor's type and shape.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan {

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
