// SPDX-License-Identifier: Apache-2.0
#pragma once
// The catalog schema: which kinds exist, which fields each record has, their types,
// units and sane ranges. One table drives loading, `catalog check`, `catalog show`
// and the conversion to typed records, so a field is declared exactly once.
#include <span>
#include <string>
#include <string_view>

#include "gpuplan/quantity.hpp"

namespace gpuplan {

enum class FieldType { text, integer, number, boolean, choice };

struct FieldSpec {
  std::string_view name;
  FieldType type;
  QuantityKind kind = QuantityKind::real;  // for numbers: how a string value is parsed
  bool required = false;
  double min = 0;  // inclusive sane range; values outside are rejected as absurd
  double max = 0;
  std::string_view choices = {};  // for choice: "a|b|c"
  std::string_view help = {};
};

struct KindSpec {
  std::string_view kind;  // the table name in TOML: "accelerators"
  std::string_view singular;
  std::span<const FieldSpec> fields;
};

std::span<const KindSpec> catalog_kinds();
const KindSpec* find_kind(std::string_view kind);
const FieldSpec* find_field(const KindSpec& kind, std::string_view name);
// "unknown catalog kind 'X'; did you mean Y?; expected accelerators, apis, ...": for a catalog
// file's table and for `gpuplan catalog list X` alike.
std::string unknown_kind_message(std::string_view kind);

}  // namespace gpuplan
