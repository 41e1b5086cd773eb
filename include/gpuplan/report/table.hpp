// SPDX-License-Identifier: Apache-2.0
#pragma once
// A text table (rows of cells, numbers aligned right, units in headers) and the one
// renderer that turns a command's result into table, JSON, CSV or Markdown.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/report/value.hpp"

namespace gpuplan {

enum class Format { table, json, csv, markdown };
Format parse_format(const std::string& text);  // throws Error(usage)

struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<bool> right;  // per column: align right (numbers)
  std::vector<std::vector<std::string>> rows;

  void add_row(std::vector<std::string> row) { rows.push_back(std::move(row)); }
};

// What a command hands to the renderer: the machine form, the human form, notes.
struct Document {
  Value data;                      // JSON (and CSV when no csv table is given)
  std::vector<Table> tables;       // table and markdown formats
  std::vector<std::string> lines;  // free text after the tables (explanations)
  std::vector<std::string> warnings;  // to stderr as "gpuplan: warning: ...", never stdout
  std::optional<Table> csv;        // CSV rows; when absent, data is flattened into one row
  int exit_code = 0;               // the answer is printed, then the command exits with this (1: does not fit)
  std::string failure;             // why the request was not met (exit_code 1): one stderr line after the answer
};

// max_width > 0 (a terminal's columns): text columns wrap, widest first, so that rows fit;
// 0: every cell on one line at full width (pipes and files).
std::string render_text(const Table& t, std::size_t max_width = 0);
std::string render_markdown(const Table& t);
std::string render_csv(const Table& t);
std::string csv_field(const std::string& s);
std::string markdown_text(std::string_view s);
// JSON output carries "schema_version" first; it changes when a key is renamed or its unit
// changes (man page, HISTORY).
constexpr int json_schema_version = 1;
Value with_schema_version(const Value& data);
std::string render(const Document& doc, Format format, std::size_t max_width = 0);

}  // namespace gpuplan
