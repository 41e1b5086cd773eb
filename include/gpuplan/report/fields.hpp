// SPDX-License-Identifier: Apache-2.0
#pragma once
// One field table per answer: each figure an answer reports is declared once, with its JSON
// key and, when people see it, its heading and rendering. JSON objects, CSV rows (one row per
// answer under a header of keys) and the human table's columns all come from that one list,
// so a figure cannot appear in one format and be forgotten, renamed or rounded in another.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/report/table.hpp"
#include "gpuplan/report/value.hpp"

namespace gpuplan {

template <class T>
struct Field {
  std::string_view key;                     // JSON key, dots nest ("layout.tp"); empty: human table only
  Value (*value)(const T&) = nullptr;       // the machine value: numbers stay numbers, missing is null
  std::string_view heading = {};            // human column heading; empty: machine formats only
  std::string (*text)(const T&) = nullptr;  // human rendering; nullptr: the machine value as text
  bool right = true;                        // align right (numbers)
};

// The JSON object of one answer: every field with a key, in table order.
template <class T>
Value fields_object(std::span<const Field<T>> fields, const T& x) {
  Value out = Value::object();
  for (const auto& f : fields)
    if (!f.key.empty()) set_dotted(out, f.key, f.value(x));
  return out;
}

// CSV: a header of keys, one row per answer.
template <class T>
Table fields_csv(std::span<const Field<T>> fields, std::span<const T> rows) {
  Table t;
  for (const auto& f : fields)
    if (!f.key.empty()) t.headers.emplace_back(f.key);
  for (const auto& x : rows) {
    std::vector<std::string> cells;
    for (const auto& f : fields)
      if (!f.key.empty()) cells.push_back(scalar_text(f.value(x)));
    t.add_row(std::move(cells));
  }
  return t;
}

// The human table: a column per field with a heading, a row per answer.
template <class T>
Table fields_columns(std::span<const Field<T>> fields, std::span<const T> rows) {
  Table t;
  for (const auto& f : fields)
    if (!f.heading.empty()) {
      t.headers.emplace_back(f.heading);
      t.right.push_back(f.right);
    }
  for (const auto& x : rows) {
    std::vector<std::string> cells;
    for (const auto& f : fields)
      if (!f.heading.empty()) cells.push_back(f.text ? f.text(x) : scalar_text(f.value(x)));
    t.add_row(std::move(cells));
  }
  return t;
}

}  // namespace gpuplan
