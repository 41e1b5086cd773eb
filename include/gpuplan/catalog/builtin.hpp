// SPDX-License-Identifier: Apache-2.0
#pragma once
// The shipped catalogs/*.toml, compiled to data at build time: gpuplan-catalog-gen (run by the
// build) merges them through the same schema checks as any user catalog and writes the records
// as constant arrays, so that no TOML is parsed at run time. Catalog::builtin() reads them.
#include "gpuplan/catalog/schema.hpp"

namespace gpuplan {

struct BuiltinField {
  const char* name;
  FieldType type;
  const char* text;
  double number;
  bool flag;
  const char* origin;
};

struct BuiltinRecord {
  const char* kind;
  const char* id;
  int first_field, fields;    // into BuiltinCatalog::fields
  int first_origin, origins;  // into BuiltinCatalog::origins
};

struct BuiltinCatalog {
  const BuiltinRecord* records;
  int record_count;
  const BuiltinField* fields;
  const char* const* origins;
};

const BuiltinCatalog& builtin_records();

}  // namespace gpuplan
