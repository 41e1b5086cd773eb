// SPDX-License-Identifier: Apache-2.0
#include "toml_parse.hpp"

#include <fmt/format.h>
#include <optional>

namespace gpuplan {

std::string toml_where(const toml::source_region& r, const std::string& path) {
  return fmt::format("{}:{}:{}", path, r.begin.line, r.begin.column);
}

namespace {

bool bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

struct Problem {
  std::size_t line, column;
  std::string message;
};

// toml++ recurses once per part of a dotted key and per level of nesting: 40,000 parts overflow
// the stack. No catalog, plan or calibration file needs more than a handful.
constexpr std::size_t max_key_parts = 64, max_nesting = 64;

// A scan of the text outside strings and comments (TOML 1.0: strings are "...", '...',
// """...""" and '''...''', comments run from # to the end of the line). It tracks whether a
// value is open (after `=`, until the end of its line outside brackets) so that a `[` that
// starts a line is known to be a table header rather than an array inside a value.
std::optional<Problem> precheck(std::string_view t) {
  std::size_t line = 1, line_start = 0;
  bool in_value = false;  // after a key's '=', until the value ends
  std::string open;       // brackets and braces open inside the value, innermost last
  bool line_blank = true; // nothing but whitespace so far on this line (outside a value)
  char prev = '\n';       // the last character outside strings that is not a space or tab
  bool token = false;     // inside a bare value (number, date, boolean, or junk)
  bool key_due = false;   // inside an inline table, where a key is due (after '{' or ',')
  bool key_token = false; // the bare token is such a key: '=' ends it
  const auto problem = [&](std::size_t at, std::string message) {
    return Problem{line, at - line_start + 1, std::move(message)};
  };
  // TOML 1.0 permits no control character but tab, LF and CRLF anywhere, strings and
  // comments included; a NUL inside a bare value reaches an assertion in toml++ 3.3.0
  // (`sc= 1\0\0\0-----" 5 [`, found by fuzz_calibration).
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto u = static_cast<unsigned char>(t[i]);
    if (u == '\n') ++line, line_start = i + 1;
    if ((u < 0x20 && u != '\t' && u != '\n' && !(u == '\r' && i + 1 < t.size() && t[i + 1] == '\n')) || u == 0x7f)
      return problem(i, fmt::format("control character U+{:04X}; TOML allows only tab and newlines (write it as \\u{:04X} "
                                    "inside a quoted string)",
                                    u, u));
  }
  line = 1, line_start = 0;
  std::size_t dots = 0;  // dots of the key being read (reset where a key starts)
  for (std::size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '.' && ++dots >= max_key_parts)
      return problem(i, fmt::format("a dotted key or header has more than {} parts", max_key_parts));
    if (c == '\n' || c == '=' || c == ',' || c == '{') dots = 0;
    if (c == '\n') {
      prev = '\n';
      ++line, line_start = ++i;
      token = false;
      if (open.empty()) in_value = false;
      line_blank = !in_value;
      continue;
    }
    if (c == '#') {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    // A bare value runs to a value terminator; toml++ reads every character of it (quotes,
    // brackets and dots included, `0"[:"...`), so nothing inside it opens a string.
    // A bare key inside an inline table ends at its '=' (`a={b={b=...` nests, and a string may
    // follow: fuzz_calibration found the nesting and a """ hidden inside such a "token").
    if (token && (std::string_view(" \t\r,]}#").find(c) != std::string_view::npos || (c == '=' && key_token))) token = false;
    if (!token && in_value && std::string_view(" \t\r[{]},#=\"'").find(c) == std::string_view::npos) token = true, key_token = key_due;
    if (token) {
      if (static_cast<unsigned char>(c) >= 0x80)
        return problem(i, "a character outside ASCII in a value outside quotes; quote the value");
      prev = c, line_blank = false, ++i;
      continue;
    }
    // A quote opens a string only where a key or a value starts (`1+'x` is a bare value).
    if ((c == '"' || c == '\'') && std::string_view("\n=[{,.").find(prev) != std::string_view::npos) {
      // Multi-line strings are values only. At a key toml++ 3.3.0 reads `"""` one way or the
      // other (the empty key and a stray quote, or a string), so it is refused outright.
      const bool triple = t.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      const bool at_key = !in_value || prev == '.' || (!open.empty() && open.back() == '{' && (prev == '{' || prev == ','));
      if (triple && at_key) return problem(i, "a key cannot be a multi-line string");
      const bool multi = triple;
      std::size_t j = i + (multi ? 3 : 1);
      for (; j < t.size(); ++j) {
        if (t[j] == '\n') {
          if (!multi) break;  // toml++ reports the unterminated string
          ++line, line_start = j + 1;
        } else if (c == '"' && t[j] == '\\') {
          ++j;
          // An escape is ASCII; toml++ 3.3.0 asks its whitespace table about the character
          // after a backslash, and after a line-ending backslash about every character up to
          // the next that is not a space or newline: undefined for much of the non-ASCII range.
          std::size_t w = j;
          while (w < t.size() && (t[w] == ' ' || t[w] == '\t' || t[w] == '\r' || t[w] == '\n')) ++w;
          if (w < t.size() && static_cast<unsigned char>(t[w]) >= 0x80)
            return problem(j - 1, w == j ? "a backslash before a character outside ASCII is not a TOML escape (write \\\\ for a backslash)"
                                         : "toml++ 3.3.0 cannot read a character outside ASCII first after a line-ending backslash; "
                                           "start the continued line with an ASCII character");
          if (j < t.size() && t[j] == '\n') ++line, line_start = j + 1;
        } else if (t[j] == c && (!multi || t.substr(j, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''"))) {
          if (multi) {
            const std::size_t close = j;
            j += 3;
            while (j < t.size() && t[j] == c && j < close + 5) ++j;  // up to two quotes end the body
          } else {
            ++j;
          }
          break;
        }
      }
      i = j;
      line_blank = false;
      prev = c;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80)
      return problem(i, "a character outside ASCII outside a quoted string; keys and values outside quotes are ASCII "
                        "(quote the key: \"name\" = ...)");
    if (c == '=' && open.empty()) in_value = true;
    if (c == '=') key_due = false;
    if (in_value && (c == '{' || (c == ',' && !open.empty() && open.back() == '{'))) key_due = true;
    if (in_value && (c == '[' || c == '{')) {
      open += c;
      if (open.size() > max_nesting)
        return problem(i, fmt::format("arrays and inline tables nest more than {} deep", max_nesting));
    }
    if (in_value && (c == ']' || c == '}') && !open.empty()) {
      // A brace closing an array reaches an assertion in toml++ 3.3.0 (`a = [1, }`).
      if ((c == '}') != (open.back() == '{'))
        return problem(i, fmt::format("'{}' closes {}; expected '{}'", c, open.back() == '[' ? "an array" : "an inline table",
                                      open.back() == '[' ? ']' : '}'));
      open.pop_back();
    }
    if (c == '[' && !in_value && line_blank) {
      std::size_t j = i + 1;
      if (j < t.size() && t[j] == '[') ++j;
      while (j < t.size() && (t[j] == ' ' || t[j] == '\t')) ++j;
      if (j < t.size() && !bare_key_char(t[j]) && t[j] != '"' && t[j] != '\'' && t[j] != ']')
        return problem(j, "a table header must start with a key: [name] or [[name]]");
    }
    if (c != ' ' && c != '\t' && c != '\r') line_blank = false, prev = c;
    ++i;
  }
  return std::nullopt;
}

}  // namespace

toml::table parse_toml(std::string_view text, const std::string& path) {
  // A UTF-8 byte-order mark, as Windows editors write it, is not part of the text.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (auto p = precheck(text)) throw TomlSyntax{fmt::format("{}:{}:{}", path, p->line, p->column), p->message};
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw TomlSyntax{toml_where(e.source(), path), std::string(e.description())};
  }
}

}  // namespace gpuplan
