// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/report/table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
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

namespace {
// The first `w` code points of s and the rest: at the last space within them when there is one
// (so words stay whole), else cut there.
std::pair<std::string, std::string> split_at_width(const std::string& s, std::size_t w) {
  std::size_t bytes = 0, points = 0, space = std::string::npos;
  while (bytes < s.size() && points < w) {
    if (s[bytes] == ' ') space = bytes;
    ++bytes;
    while (bytes < s.size() && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80) ++bytes;
    ++points;
  }
  if (bytes >= s.size()) return {s, ""};
  if (s[bytes] == ' ') space = bytes;
  const std::size_t cut = space != std::string::npos && space > 0 ? space : bytes;
  std::size_t next = cut;
  while (next < s.size() && s[next] == ' ') ++next;
  return {s.substr(0, cut), s.substr(next)};
}
// s as lines of at most w code points (w 0: one line).
std::vector<std::string> wrap(std::string s, std::size_t w) {
  std::vector<std::string> out;
  if (w == 0 || width(s) <= w) return {s};
  while (!s.empty()) {
    auto [head, rest] = split_at_width(s, w);
    out.push_back(head);
    s = rest;
  }
  return out;
}
}  // namespace

std::string render_text(const Table& t, std::size_t max_width) {
  const std::size_t n = t.headers.size();
  std::vector<std::size_t> w(n, 0);
  for (std::size_t c = 0; c < n; ++c) w[c] = width(t.headers[c]);
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < n; ++c) w[c] = std::max(w[c], width(printable(row[c])));
  auto right = [&](std::size_t c) { return c < t.right.size() && t.right[c]; };
  // Narrower than the terminal: the widest text column gives way first and its cells wrap at
  // spaces, down to its heading or its longest word (at most 20 characters wide), so that ids
  // never break. Right-aligned columns hold figures with their units: a figure (a cell of up to 24
  // characters: "$13.1M / $52.4M") never wraps, a longer value (a fabric, a site) may, at spaces.
  std::vector<std::size_t> floor(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t word = 0, figure = 0;
    for (const auto& row : t.rows)
      if (c < row.size()) {
        if (const std::size_t cell = width(printable(row[c])); cell <= 24) figure = std::max(figure, cell);
        for (std::size_t start = 0; start < row[c].size();) {
          const std::size_t end = std::min(row[c].find(' ', start), row[c].size());
          word = std::max(word, width(row[c].substr(start, end - start)));
          start = end + 1;
        }
      }
    floor[c] = right(c) ? std::max({width(t.headers[c]), figure, word})
                        : std::max(width(t.headers[c]), std::min<std::size_t>(word, 20));
  }
  // The first column names the rows: it keeps its width while the others can give way, and wraps
  // only what the terminal cannot hold beside their floors.
  if (max_width > 0 && n > 1) {
    std::size_t others = 2 * (n - 1);
    for (std::size_t c = 1; c < n; ++c) others += floor[c];
    floor[0] = std::max(floor[0], std::min(w[0], max_width > others ? max_width - others : 0));
  }
  if (max_width > 0 && n > 0) {
    auto total = [&] {
      std::size_t sum = 2 * (n - 1);
      for (auto x : w) sum += x;
      return sum;
    };
    while (total() > max_width) {
      std::size_t widest = n;
      for (std::size_t c = 0; c < n; ++c)
        if (w[c] > floor[c] && (widest == n || w[c] > w[widest])) widest = c;
      if (widest == n) break;
      std::size_t second = 0;  // shrink to the next widest column at most, then share
      for (std::size_t c = 0; c < n; ++c)
        if (c != widest) second = std::max(second, w[c]);
      const std::size_t target = std::max({floor[widest], second, w[widest] - std::min(w[widest], total() - max_width)});
      w[widest] = target < w[widest] ? target : w[widest] - 1;
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> parts(n);
    std::size_t height = 1;
    for (std::size_t c = 0; c < n; ++c) {
      parts[c] = wrap(c < cells.size() ? printable(cells[c]) : "", w[c]);
      height = std::max(height, parts[c].size());
    }
    std::string out;
    for (std::size_t h = 0; h < height; ++h) {
      std::string l;
      for (std::size_t c = 0; c < n; ++c) {
        l += pad(h < parts[c].size() ? parts[c][h] : "", w[c], right(c));
        if (c + 1 < n) l += "  ";
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();
      out += l + "\n";
    }
    return out;
  };
  std::string out;
  if (!t.title.empty())
    for (const auto& l : wrap(printable(t.title), max_width)) out += l + "\n";
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
// UTF-8 becomes U+FFFD, as in JSON; control characters a terminal would act on (ESC, C1,
// bidirectional overrides) become spaces, as in a table, since a CSV file is also read with cat. Text that a spreadsheet would run as a formula (starting with
// =, +, -, @, tab or CR) gets a leading apostrophe, as OWASP's CSV injection guidance says;
// numbers ("-0.5", "+3") stay as they are.
std::string csv_field(const std::string& s) {
  std::string text = printable_lines(s);
  if (!text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos) {
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || text.size() == 1) text.insert(0, 1, '\'');
  }
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

std::string render(const Document& doc, Format format, std::size_t max_width) {
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
        out += render_text(doc.tables[i], max_width);
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
