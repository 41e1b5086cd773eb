// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "gpuplan/catalog/builtin.hpp"
#include "gpuplan/catalog/catalog.hpp"

namespace gpuplan {

// The shipped catalogs, validated and merged at build time (src/catalog/gen_builtin.cpp): here
// only copied into records, with no TOML to parse (that was half of a one-shot command's time).
Catalog Catalog::builtin() {
  Catalog c;
  const BuiltinCatalog& b = builtin_records();
  for (int i = 0; i < b.record_count; ++i) {
    const BuiltinRecord& br = b.records[i];
    Record r;
    r.kind = br.kind;
    r.id = br.id;
    r.fields.reserve(static_cast<std::size_t>(br.fields));
    for (int f = br.first_field; f < br.first_field + br.fields; ++f) {
      const BuiltinField& bf = b.fields[f];
      FieldValue v;
      v.type = bf.type;
      v.text = bf.text;
      v.number = bf.number;
      v.flag = bf.flag;
      v.origin = bf.origin;
      r.fields.emplace_back(bf.name, std::move(v));
    }
    for (int o = br.first_origin; o < br.first_origin + br.origins; ++o) r.origins.emplace_back(b.origins[o]);
    auto& bucket = c.kinds_[r.kind];
    std::string id = r.id;
    bucket.emplace_hint(bucket.end(), std::move(id), std::move(r));  // the generator writes ids in order
  }
  return c;
}

}  // namespace gpuplan
