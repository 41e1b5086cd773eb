// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the catalog loader. Any text merged over the built-in catalog either
// merges or is refused with diagnostics; a merged catalog must list and show every record.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/catalog/schema.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/report/table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog builtin = gpuplan::Catalog::builtin();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Catalog cat = builtin;
  std::vector<gpuplan::Diagnostic> diags;
  if (!cat.merge_text(text, "fuzz.toml", diags)) {
    if (diags.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  using gpuplan::Format;
  for (const auto& kind : gpuplan::catalog_kinds()) {
    const gpuplan::Document doc = gpuplan::run_catalog_list(cat, {std::string(kind.kind)});
    for (Format f : {Format::table, Format::json, Format::csv, Format::markdown}) {
      const std::string out = gpuplan::render(doc, f);
      if (f == Format::json && !gpuplan::valid_utf8(out)) std::abort();
    }
  }
  return 0;
}
