// SPDX-License-Identifier: Apache-2.0
#pragma once
// Catalog records as loaded from TOML, merged by id across the override chain
// (built-in, XDG data dirs, XDG config home, $GPUPLAN_CATALOG_PATH, --catalog, plan files).
#include <map>
#include <string>
#include <vector>

#include "gpuplan/catalog/schema.hpp"

namespace gpuplan {

struct FieldValue {
  FieldType type = FieldType::text;
  std::string text;   // text and choice
  double number = 0;  // integer and number, in SI base units
  bool flag = false;
  std::string origin;  // "file:line:col" it came from
};

struct Record {
  std::string kind;
  std::string id;
  std::vector<std::pair<std::string, FieldValue>> fields;  // schema order
  std::vector<std::string> origins;                        // files that defined or changed it

  const FieldValue* get(std::string_view name) const;
  double number(std::string_view name, double fallback = 0) const;
  std::string text(std::string_view name, const std::string& fallback = {}) const;
  bool flag(std::string_view name, bool fallback = false) const;
  bool has(std::string_view name) const { return get(name) != nullptr; }
};

// A diagnostic from loading: rendered "file:line:col: error: message".
struct Diagnostic {
  std::string where;
  std::string message;
  std::string text() const { return where + ": error: " + message; }
};

class Catalog {
public:
  // Loads the compiled-in catalogs.
  static Catalog builtin();

  // Merges one TOML document. Records with a known id override field by field; new ids
  // must carry every required field. Appends problems to diags; returns false on any.
  // With `under`, only that top-level table is read (a plan file's [catalog.*] records).
  bool merge_text(std::string_view text, const std::string& path, std::vector<Diagnostic>& diags,
                  std::string_view under = {});
  // Reads a file or every *.toml in a directory (sorted). Throws Error(no_input) when
  // it cannot be read.
  bool merge_path(const std::string& path, std::vector<Diagnostic>& diags);
  // Merges the override chain: XDG dirs, $GPUPLAN_CATALOG_PATH, then each extra path.
  // Throws Error(data) with every diagnostic when anything is invalid.
  void merge_chain(const std::vector<std::string>& extra);

  const Record* find(std::string_view kind, std::string_view id) const;
  // Like find, but throws Error(usage) "unknown accelerator 'x'; did you mean y?".
  const Record& get(std::string_view kind, std::string_view id) const;
  std::vector<const Record*> list(std::string_view kind) const;
  std::vector<std::string> ids(std::string_view kind) const;

private:
  std::map<std::string, std::map<std::string, Record>, std::less<>> kinds_;
};

// The *.toml files of a catalog directory (any case), sorted; Error(no_input) when it cannot be
// read or one of them is not a regular file.
std::vector<std::string> catalog_files(const std::string& dir);

// The override chain in order, with whether each exists: for `catalog paths`.
struct CatalogPath {
  std::string origin;  // "built-in", "XDG_DATA_DIRS", ...
  std::string path;
  bool exists;
};
std::vector<CatalogPath> catalog_paths(const std::vector<std::string>& extra);

}  // namespace gpuplan
