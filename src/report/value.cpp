// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/report/value.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

Value& Value::set(const std::string& key, Value v) {
  for (auto& [k, existing] : members_) {
    if (k == key) {
      existing = std::move(v);
      return existing;
    }
  }
  members_.emplace_back(key, std::move(v));
  return members_.back().second;
}

Value& Value::member_object(const std::string& key) {
  for (auto& [k, existing] : members_)
    if (k == key) {
      if (existing.type_ != Type::object) existing = object();
      return existing;
    }
  return set(key, object());
}

void set_dotted(Value& object, std::string_view key, Value v) {
  Value* at = &object;
  for (std::size_t dot; (dot = key.find('.')) != std::string_view::npos; key.remove_prefix(dot + 1))
    at = &at->member_object(std::string(key.substr(0, dot)));
  at->set(std::string(key), std::move(v));
}

Value& Value::push(Value v) {
  items_.push_back(std::move(v));
  return items_.back();
}

const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : members_)
    if (k == key) return &v;
  return nullptr;
}

namespace {

// JSON is UTF-8 (RFC 8259 8.1): a byte that starts no well-formed sequence is written as
// U+FFFD, so that a catalog or plan value with stray bytes still gives a document every
// parser reads.
void escape(std::string& out, const std::string& s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) {
      out += "\\ufffd", ++i;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else out.append(s, i, len);
    }
    i += len;
  }
  out += '"';
}

void write(std::string& out, const Value& v, int depth) {
  std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' ');
  std::string close(static_cast<std::size_t>(depth) * 2, ' ');
  switch (v.type()) {
    case Value::Type::null: out += "null"; break;
    case Value::Type::boolean: out += v.as_bool() ? "true" : "false"; break;
    case Value::Type::number: out += format_exact(v.as_number()); break;
    case Value::Type::string: escape(out, v.as_string()); break;
    case Value::Type::array:
      if (v.items().empty()) { out += "[]"; break; }
      out += "[\n";
      for (std::size_t i = 0; i < v.items().size(); ++i) {
        out += pad;
        write(out, v.items()[i], depth + 1);
        out += i + 1 < v.items().size() ? ",\n" : "\n";
      }
      out += close + "]";
      break;
    case Value::Type::object:
      if (v.members().empty()) { out += "{}"; break; }
      out += "{\n";
      for (std::size_t i = 0; i < v.members().size(); ++i) {
        out += pad;
        escape(out, v.members()[i].first);
        out += ": ";
        write(out, v.members()[i].second, depth + 1);
        out += i + 1 < v.members().size() ? ",\n" : "\n";
      }
      out += close + "}";
      break;
  }
}

void flatten_into(const Value& v, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out) {
  if (v.type() == Value::Type::object) {
    for (const auto& [k, child] : v.members())
      flatten_into(child, prefix.empty() ? k : prefix + "." + k, out);
  } else if (v.type() != Value::Type::array) {
    out.emplace_back(prefix, scalar_text(v));
  }
}

}  // namespace

std::string scalar_text(const Value& v) {
  switch (v.type()) {
    case Value::Type::null: return "";
    case Value::Type::boolean: return v.as_bool() ? "true" : "false";
    case Value::Type::number: return format_exact(v.as_number());
    case Value::Type::string: return v.as_string();
    default: return to_json(v);
  }
}

std::string to_json(const Value& v) {
  std::string out;
  write(out, v, 0);
  out += '\n';
  return out;
}

std::optional<double> number_at(const Value& root, const std::string& path) {
  const Value* x = find_path(root, path);
  if (x && x->type() == Value::Type::number) return x->as_number();
  return std::nullopt;
}

const Value* find_path(const Value& root, const std::string& path) {
  const Value* cur = &root;
  std::size_t start = 0;
  while (cur && start <= path.size()) {
    std::size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (cur->type() == Value::Type::object) {
      cur = cur->find(part);
    } else if (cur->type() == Value::Type::array) {
      char* end = nullptr;
      unsigned long idx = std::strtoul(part.c_str(), &end, 10);
      if (part.empty() || *end != '\0' || idx >= cur->items().size()) return nullptr;
      cur = &cur->items()[idx];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

std::vector<std::pair<std::string, std::string>> flatten(const Value& v) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten_into(v, "", out);
  return out;
}

std::optional<std::string> first_non_finite(const Value& root) {
  switch (root.type()) {
    case Value::Type::number:
      if (!std::isfinite(root.as_number())) return std::string();
      return std::nullopt;
    case Value::Type::array:
      for (std::size_t i = 0; i < root.items().size(); ++i)
        if (auto p = first_non_finite(root.items()[i])) return std::to_string(i) + (p->empty() ? "" : "." + *p);
      return std::nullopt;
    case Value::Type::object:
      for (const auto& [k, v] : root.members())
        if (auto p = first_non_finite(v)) return k + (p->empty() ? "" : "." + *p);
      return std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace gpuplan
