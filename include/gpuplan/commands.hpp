#pragma once
// The subcommands, as plain functions of plain option structs. Only src/cli.cpp knows
// CLI11; it fills these structs, calls run_*, and renders the returned Document.
#include <string>
#include <vector>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/report/table.hpp"

namespace gpuplan {

struct CatalogListOptions {
  std::string kind;
};
struct CatalogShowOptions {
  std::string id;
  std::string kind;  // optional: restrict to one kind
};

Document run_catalog_list(const Catalog& catalog, const CatalogListOptions& opts);
Document run_catalog_show(const Catalog& catalog, const CatalogShowOptions& opts);
// Validates files on top of the built-in catalog; returns the report and sets ok.
Document run_catalog_check(const std::vector<std::string>& files, bool& ok);
Document run_catalog_paths(const std::vector<std::string>& extra);

}  // namespace gpuplan
