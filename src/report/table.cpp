#include "gpuplan/report/table.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

Format parse_format(const std::string& text) {
  if (text == "table") return Format::table;
  if (text == "json") return Format::json;
  if (text == "csv") return Format::csv;
  if (text == "markdown" || text == "md") return Format::markdown;
  fail(Exit::usage, fmt::format("--format '{}' is not a format; expected table, json, csv or markdown", text));
}

namespace {
// Display width in code points, so that bars and units made of UTF-8 align.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
std::string pad(const std::string& s, std::size_t w, bool right) {
  std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return right ? fill + s : s + fill;
}
}  // namespace

std::string render_text(const Table& t) {
  std::vector<std::size_t> w(t.headers.size(), 0);
  for (std::size_t c = 0; c < t.headers.size(); ++c) w[c] = width(t.headers[c]);
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < w.size(); ++c) w[c] = std::max(w[c], width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < w.size(); ++c) {
      bool right = c < t.right.size() && t.right[c];
      std::string cell = c < cells.size() ? printable(cells[c]) : "";
      out += pad(cell, w[c], right);
      if (c + 1 < w.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  if (!t.title.empty()) out += printable(t.title) + "\n";
  out += line(t.headers);
  std::vector<std::string> rule;
  for (auto x : w) rule.push_back(std::string(x, '-'));
  out += line(rule);
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string render_markdown(const Table& t) {
  std::string out;
  if (!t.title.empty()) out += "### " + markdown_text(t.title) + "\n\n";
  out += "|";
  for (const auto& h : t.headers) out += " " + markdown_text(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < t.headers.size(); ++c)
    out += (c < t.right.size() && t.right[c]) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (std::size_t c = 0; c < t.headers.size(); ++c) out += " " + (c < row.size() ? markdown_text(row[c]) : std::string()) + " |";
    out += "\n";
  }
  return out;
}

// RFC 4180: a field with a comma, a quote or a line break (CR or LF) is quoted. Ill-formed
// UTF-8 becomes U+FFFD, as in JSON.
std::string csv_field(const std::string& s) {
  const std::string text = well_formed_utf8(s);
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Markdown inline text: one line (control characters become spaces), with what would start
// HTML (<), code, emphasis, a link or a new cell backslash-escaped (CommonMark 0.31, GFM tables),
// and nothing else, so that "[estimate]" and "port_usd" read as they are.
std::string markdown_text(std::string_view s) {
  const std::string t = printable(s);
  const auto word = [&](std::size_t i) {
    return i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || static_cast<unsigned char>(t[i]) >= 0x80);
  };
  std::string out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    const bool escape = std::string_view("\\`*|<").find(c) != std::string_view::npos ||
                        (c == '_' && !(i > 0 && word(i - 1) && word(i + 1))) ||  // intraword _ is literal
                        (c == ']' && i + 1 < t.size() && (t[i + 1] == '(' || t[i + 1] == '[' || t[i + 1] == ':'));
    if (escape) out += '\\';
    out += c;
  }
  return out;
}

std::string render_csv(const Table& t) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) out += ",";
      out += csv_field(cells[c]);
    }
    out += "\n";
  };
  line(t.headers);
  for (const auto& row : t.rows) line(row);
  return out;
}

Value with_schema_version(const Value& data) {
  if (data.type() != Value::Type::object) return data;
  Value v = Value::object();
  v.set("schema_version", json_schema_version);
  for (const auto& [k, m] : data.members()) v.set(k, m);
  return v;
}

std::string render(const Document& doc, Format format) {
  switch (format) {
    case Format::json: return to_json(with_schema_version(doc.data));
    case Format::csv: {
      if (doc.csv) return render_csv(*doc.csv);
      // One result, one row: the flattened keys are the header.
      Table t;
      std::vector<std::string> row;
      for (auto& [k, v] : flatten(doc.data)) t.headers.push_back(k), row.push_back(v);
      t.add_row(row);
      return render_csv(t);
    }
    case Format::markdown: {
      std::string out;
      for (std::size_t i = 0; i < doc.tables.size(); ++i) {
        if (i) out += "\n";
        out += render_markdown(doc.tables[i]);
      }
      if (!doc.lines.empty()) {
        out += "\n";
        for (const auto& l : doc.lines) out += l.empty() ? "\n" : "    " + l + "\n";
      }
      return out;
    }
    case Format::table: {
      std::string out;
      for (std::size_t i = 0; i < doc.tables.size(); ++i) {
        if (i) out += "\n";
        out += render_text(doc.tables[i]);
      }
      if (!doc.lines.empty()) {
        if (!doc.tables.empty()) out += "\n";
        for (const auto& l : doc.lines) out += l + "\n";
      }
      return out;
    }
  }
  return {};
}

}  // namespace gpuplan
