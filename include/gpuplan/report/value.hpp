// SPDX-License-Identifier: Apache-2.0
#pragma once
// A small ordered document tree: what every command produces for machines (JSON, CSV)
// and, with tables, for people. Keys keep insertion order, so output is deterministic.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan {

class Value {
public:
  enum class Type { null, boolean, number, string, array, object };

  Value() = default;
  Value(bool b) : type_(Type::boolean), bool_(b) {}
  Value(double d) : type_(Type::number), number_(d) {}
  Value(int i) : type_(Type::number), number_(i) {}
  Value(long i) : type_(Type::number), number_(static_cast<double>(i)) {}
  Value(long long i) : type_(Type::number), number_(static_cast<double>(i)) {}
  Value(unsigned long i) : type_(Type::number), number_(static_cast<double>(i)) {}
  Value(const char* s) : type_(Type::string), string_(s) {}
  // A figure that may be missing: null when it is.
  Value(const std::optional<double>& v) : Value(v ? Value(*v) : Value()) {}
  Value(std::string s) : type_(Type::string), string_(std::move(s)) {}

  static Value object() { Value v; v.type_ = Type::object; return v; }
  static Value array() { Value v; v.type_ = Type::array; return v; }

  Type type() const { return type_; }
  bool as_bool() const { return bool_; }
  double as_number() const { return number_; }
  const std::string& as_string() const { return string_; }
  const std::vector<Value>& items() const { return items_; }
  const std::vector<std::pair<std::string, Value>>& members() const { return members_; }

  // Object: sets key (replacing an existing one in place). Returns the stored value.
  Value& set(const std::string& key, Value v);
  // Object: the object member at key, created empty (last) when absent.
  Value& member_object(const std::string& key);
  // Array: appends.
  Value& push(Value v);
  // Object lookup; nullptr when absent or not an object.
  const Value* find(const std::string& key) const;

private:
  Type type_ = Type::null;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

// Sets a dotted key in an object, creating the nested objects in order ("a.b" -> {"a": {"b": v}}).
void set_dotted(Value& object, std::string_view key, Value v);

// JSON with two-space indentation, keys in insertion order, numbers in shortest exact form.
std::string to_json(const Value& v);
// The scalar at a dotted path ("layout.tp", "results.0.step_time_s"), or nullptr.
const Value* find_path(const Value& root, const std::string& path);
// The number at a dotted path; nothing when absent, null or not a number.
std::optional<double> number_at(const Value& root, const std::string& path);
// The dotted path of the first number that is not finite (an answer must never print inf or
// nan, nor turn them into JSON null), or nullopt when every number is finite.
std::optional<std::string> first_non_finite(const Value& root);
// Flattens nested objects into dotted keys, for a CSV row of one result. Lists (assumptions,
// warnings, alternatives) are left out: they are not figures of the result, and stay in JSON.
std::vector<std::pair<std::string, std::string>> flatten(const Value& v);
std::string scalar_text(const Value& v);

}  // namespace gpuplan
