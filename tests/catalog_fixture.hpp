#pragma once
// The built-in catalog, parsed once for the whole test binary.
#include "gpuplan/catalog/catalog.hpp"

inline const gpuplan::Catalog& builtin_catalog() {
  static const gpuplan::Catalog c = gpuplan::Catalog::builtin();
  return c;
}
