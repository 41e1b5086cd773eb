// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/xdg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "gpuplan/error.hpp"
#include "gpuplan/output.hpp"
#include "../toml_parse.hpp"

namespace gpuplan {
namespace fs = std::filesystem;

const FieldValue* Record::get(std::string_view name) const {
  for (const auto& [k, v] : fields)
    if (k == name) return &v;
  return nullptr;
}
double Record::number(std::string_view name, double fallback) const {
  const FieldValue* v = get(name);
  return v ? v->number : fallback;
}
std::string Record::text(std::string_view name, const std::string& fallback) const {
  const FieldValue* v = get(name);
  return v ? v->text : fallback;
}
bool Record::flag(std::string_view name, bool fallback) const {
  const FieldValue* v = get(name);
  return v ? v->flag : fallback;
}

namespace {

std::string where(const toml::source_region& src, const std::string& path) { return toml_where(src, path); }

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  if (!(std::islower(static_cast<unsigned char>(id.front())) || std::isdigit(static_cast<unsigned char>(id.front()))))
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
           c == '.';
  });
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date or time";
  }
}

std::vector<std::string> field_names(const KindSpec& spec) {
  std::vector<std::string> out;
  for (const auto& f : spec.fields) out.emplace_back(f.name);
  return out;
}

// Converts one TOML value to a FieldValue per its spec; returns an error message or "".
std::string convert(const FieldSpec& spec, const toml::node& node, FieldValue& out) {
  out.type = spec.type;
  switch (spec.type) {
    case FieldType::text:
    case FieldType::choice: {
      const auto* s = node.as_string();
      if (!s) return fmt::format("'{}' must be a string, not {}", spec.name, type_name(node));
      out.text = s->get();
      if (out.text.empty()) return fmt::format("'{}' must not be empty", spec.name);
      if (spec.type == FieldType::choice) {
        std::string choices(spec.choices);
        std::string padded = "|" + choices + "|";
        if (padded.find("|" + out.text + "|") == std::string::npos)
          return fmt::format("'{}' is '{}'; expected one of {}", spec.name, out.text, choices);
      }
      return {};
    }
    case FieldType::boolean: {
      const auto* b = node.as_boolean();
      if (!b) return fmt::format("'{}' must be true or false, not {}", spec.name, type_name(node));
      out.flag = b->get();
      return {};
    }
    case FieldType::integer:
    case FieldType::number: {
      double v = 0;
      if (const auto* i = node.as_integer()) {
        v = static_cast<double>(i->get());
      } else if (const auto* d = node.as_floating_point()) {
        v = d->get();
      } else if (const auto* s = node.as_string()) {
        try {
          v = parse_quantity(s->get(), spec.kind);
          // Prices are stored in the unit their key names (USD per hour, per kWh).
          if (spec.kind == QuantityKind::money_per_hour) v *= 3600;
          if (spec.kind == QuantityKind::money_per_kwh) v *= 3.6e6;
        } catch (const QuantityError& e) {
          return fmt::format("'{}': {}", spec.name, e.what());
        }
      } else {
        return fmt::format("'{}' must be a number or a quantity string, not {}", spec.name, type_name(node));
      }
      // Checked as doubles: casting 1e308 or inf (valid TOML) to an integer is undefined.
      if (!std::isfinite(v)) return fmt::format("'{}' must be a finite number", spec.name);
      if (v < 0) return fmt::format("'{}' must not be negative", spec.name);
      if (spec.type == FieldType::integer && v != std::floor(v))
        return fmt::format("'{}' must be a whole number, not {}", spec.name, v);
      if (spec.max > spec.min && (v < spec.min || v > spec.max))
        return fmt::format("'{}' = {} is outside the sane range {} to {} (SI units: {})", spec.name, v, spec.min,
                           spec.max, describe(spec.kind));
      out.number = v;
      return {};
    }
  }
  return {};
}

}  // namespace

namespace {
// A record whose fields contradict each other, each in its range: the field named, at its
// position. Such records gave negative weights and a passing plan (a model with more dense
// layers than layers), or a 156 W facility for 8 H100 (a server of 1,000 devices at 100 W).
struct Contradiction {
  std::string where, message;
};
template <class Kinds>
std::optional<Contradiction> contradiction(const Record& r, const Kinds& kinds) {
  auto at = [&](const char* f) { const FieldValue* v = r.get(f); return v ? v->origin : std::string(); };
  auto n = [&](const char* f) { return r.number(f); };
  auto bad = [&](const char* f, std::string msg) {
    return std::optional<Contradiction>{Contradiction{at(f), fmt::format("{} '{}': {}: {}", r.kind == "models" ? "model" : r.kind == "servers" ? "server" : "accelerator", r.id, f, msg)}};
  };
  if (r.kind == "models") {
    const double layers = n("layers"), heads = n("heads"), experts = n("experts");
    if (r.has("dense_layers") && n("dense_layers") >= layers && experts > 1)
      return bad("dense_layers", fmt::format("{:.0f} leading dense layers leave no MoE layer of the {:.0f}", n("dense_layers"), layers));
    if (r.has("dense_layers") && n("dense_layers") > layers)
      return bad("dense_layers", fmt::format("{:.0f} is more than the {:.0f} layers", n("dense_layers"), layers));
    if (r.has("sliding_layers") && n("sliding_layers") > layers)
      return bad("sliding_layers", fmt::format("{:.0f} is more than the {:.0f} layers", n("sliding_layers"), layers));
    if (r.has("linear_layers") && n("linear_layers") + n("sliding_layers") > layers)
      return bad("linear_layers", fmt::format("{:.0f} linear layers and {:.0f} sliding ones are more than the {:.0f} layers",
                                              n("linear_layers"), n("sliding_layers"), layers));
    if (n("linear_layers") > 0 && (!r.has("linear_params") || !r.has("linear_state_bytes")))
      return bad("linear_layers", "linear layers need linear_params and linear_state_bytes");
    if (n("sparse_topk") > 0 && (!r.has("indexer_heads") || !r.has("indexer_dim")))
      return bad("sparse_topk", "sparse attention needs indexer_heads and indexer_dim");
    if ((r.has("indexer_heads") || r.has("indexer_dim")) && !r.has("sparse_topk"))
      return bad(r.has("indexer_heads") ? "indexer_heads" : "indexer_dim", "an indexer needs sparse_topk");
    if (experts > 1 && !r.has("active_experts")) return bad("experts", "an MoE model needs active_experts (routed experts per token)");
    if (r.has("active_experts") && n("active_experts") > experts)
      return bad("active_experts", fmt::format("{:.0f} routed experts per token, more than the {:.0f} experts", n("active_experts"), experts));
    if (r.has("kv_heads") && (n("kv_heads") > heads || std::fmod(heads, n("kv_heads")) != 0))
      return bad("kv_heads", fmt::format("{:.0f} does not divide the {:.0f} attention heads", n("kv_heads"), heads));
    if (!r.has("head_dim") && !r.has("kv_lora_rank") && std::fmod(n("hidden"), heads) != 0)
      return bad("heads", fmt::format("{:.0f} heads do not divide the width {:.0f}; give head_dim", heads, n("hidden")));
  } else if (r.kind == "accelerators") {
    if (r.has("idle_w") && r.has("tdp_w") && n("idle_w") >= n("tdp_w"))
      return bad("idle_w", fmt::format("{:.0f} W at idle is not below the {:.0f} W TDP", n("idle_w"), n("tdp_w")));
  } else if (r.kind == "servers") {
    // A node's nameplate holds at least what its accelerators draw at the lowest power limit a
    // board takes: above idle and a tenth of TDP each, as --power-cap requires (a node may run its
    // boards below TDP: JUPITER's GH200 at 680 of 1,000 W).
    const auto acc = kinds.find("accelerators");
    const Record* a = nullptr;
    if (acc != kinds.end()) {
      const auto it = acc->second.find(r.text("accelerator"));
      if (it != acc->second.end()) a = &it->second;
    }
    const double floor = a ? std::max(a->number("idle_w"), 0.1 * a->number("tdp_w")) : 0;
    if (floor > 0 && n("max_power_w") <= n("devices") * floor)
      return bad("max_power_w", fmt::format("{:.0f} W for {:.0f} devices is {:.3g} W each, not above the {:.0f} W a {} draws at "
                                            "the least (its idle draw or a tenth of its TDP)",
                                            n("max_power_w"), n("devices"), n("max_power_w") / n("devices"), floor,
                                            r.text("accelerator")));
  }
  return std::nullopt;
}
}  // namespace

bool Catalog::merge_text(std::string_view text, const std::string& path, std::vector<Diagnostic>& diags,
                         std::string_view under) {
  std::size_t before = diags.size();
  toml::table doc;
  try {
    doc = parse_toml(text, path);
  } catch (const TomlSyntax& e) {
    diags.push_back({e.where, e.message});
    return false;
  }
  const toml::table* root = &doc;
  if (!under.empty()) {
    const toml::node* sub = doc.get(under);
    if (!sub) return true;
    root = sub->as_table();
    if (!root) {
      diags.push_back({where(sub->source(), path), fmt::format("'{}' must be a table of catalog kinds such as [{}.accelerators.my-id]", under, under)});
      return false;
    }
  }
  for (const auto& [kind_key, kind_node] : *root) {
    std::string kind_name(kind_key.str());
    const KindSpec* spec = find_kind(kind_name);
    if (!spec || spec->kind != kind_name) {
      diags.push_back({where(kind_key.source(), path), unknown_kind_message(kind_name)});
      continue;
    }
    const auto* records = kind_node.as_table();
    if (!records) {
      diags.push_back({where(kind_node.source(), path),
                       fmt::format("'{}' must be a table of records such as [{}.my-id]", kind_name, kind_name)});
      continue;
    }
    auto& bucket = kinds_[kind_name];
    for (const auto& [id_key, rec_node] : *records) {
      std::string id(id_key.str());
      if (!valid_id(id)) {
        diags.push_back({where(id_key.source(), path),
                         fmt::format("id '{}' must be lower-case letters, digits, '-' or '.' (at most 64)", id)});
        continue;
      }
      const auto* fields = rec_node.as_table();
      if (!fields) {
        diags.push_back({where(rec_node.source(), path), fmt::format("{} '{}' must be a table", spec->singular, id)});
        continue;
      }
      auto existing = bucket.find(id);
      Record rec;
      if (existing != bucket.end()) rec = existing->second;
      rec.kind = kind_name;
      rec.id = id;
      bool ok = true;
      for (const auto& [fkey, fnode] : *fields) {
        std::string fname(fkey.str());
        if (fname == "id") continue;  // the key is the id; a matching id field is tolerated
        const FieldSpec* fs = find_field(*spec, fname);
        if (!fs) {
          std::string hint = suggest(fname, field_names(*spec));
          diags.push_back({where(fkey.source(), path),
                           fmt::format("unknown key '{}' in {} '{}'{}", shown(fname, 80), spec->singular, id,
                                       hint.empty() ? "" : "; did you mean '" + hint + "'?")});
          ok = false;
          continue;
        }
        FieldValue fv;
        std::string err = convert(*fs, fnode, fv);
        if (!err.empty()) {
          diags.push_back({where(fnode.source(), path), err});
          ok = false;
          continue;
        }
        // A dense figure exactly twice what the built-in catalog says is almost
        // certainly the sparse figure copied from a datasheet.
        if (existing != bucket.end() && fname.find("flops_per_s") != std::string::npos) {
          if (const FieldValue* old = existing->second.get(fname); old && old->number > 0 &&
                                                                  fv.number == 2 * old->number) {
            diags.push_back({where(fnode.source(), path),
                             fmt::format("'{}' is exactly twice the catalog's dense figure; this looks like the "
                                         "sparse figure (catalogs hold dense figures)",
                                         fname)});
            ok = false;
            continue;
          }
        }
        fv.origin = where(fnode.source(), path);
        auto slot = std::find_if(rec.fields.begin(), rec.fields.end(), [&](auto& p) { return p.first == fname; });
        if (slot != rec.fields.end()) slot->second = fv;
        else rec.fields.emplace_back(fname, fv);
      }
      if (!ok) continue;
      for (const auto& f : spec->fields) {
        if (f.required && !rec.has(f.name)) {
          diags.push_back({where(rec_node.source(), path),
                           fmt::format("{} '{}' is missing required key '{}' ({})", spec->singular, id, f.name, f.help)});
          ok = false;
        }
      }
      if (!ok) continue;
      if (auto c = contradiction(rec, kinds_)) {
        diags.push_back({c->where.empty() ? where(rec_node.source(), path) : c->where, c->message});
        continue;
      }
      // Keep fields in schema order so that `catalog show` is stable.
      std::stable_sort(rec.fields.begin(), rec.fields.end(), [&](const auto& a, const auto& b) {
        return find_field(*spec, a.first) < find_field(*spec, b.first);
      });
      rec.origins.push_back(path);
      bucket[id] = std::move(rec);
    }
  }
  return diags.size() == before;
}

namespace {
bool toml_name(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".toml";
}
}  // namespace

std::vector<std::string> catalog_files(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) fail(Exit::no_input, fmt::format("cannot read catalog directory '{}': {}", dir, ec.message()));
  std::vector<std::string> files;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) fail(Exit::no_input, fmt::format("cannot read catalog directory '{}': {}", dir, ec.message()));
    if (!toml_name(it->path())) continue;
    // A directory's files are read whole: a FIFO or a device there would block or never end.
    std::error_code fec;
    if (!fs::is_regular_file(it->path(), fec))
      fail(Exit::no_input, fmt::format("cannot read catalog '{}': not a regular file", it->path().string()));
    files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool Catalog::merge_path(const std::string& path, std::vector<Diagnostic>& diags) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    bool ok = true;
    for (const auto& f : catalog_files(path)) ok = merge_path(f, diags) && ok;
    return ok;
  }
  // The built-in catalogs together are about 100 KB; 4 MiB leaves room for any real one.
  return merge_text(read_file_capped(path, "catalog", 4 << 20), path, diags);
}


std::vector<CatalogPath> catalog_paths(const std::vector<std::string>& extra) {
  std::vector<CatalogPath> out;
  auto add = [&](const std::string& origin, const std::string& p) {
    std::error_code ec;
    out.push_back({origin, p, fs::exists(p, ec)});
  };
  out.push_back({"built-in", "(compiled into the binary)", true});
  // XDG base directories, lowest priority first: the first entry of XDG_DATA_DIRS is the most
  // important, so it is merged last; XDG_DATA_HOME outranks them, XDG_CONFIG_HOME all three.
  std::vector<std::string> data_dirs = xdg_data_dirs();
  std::reverse(data_dirs.begin(), data_dirs.end());
  for (const auto& d : data_dirs) add("XDG_DATA_DIRS", d + "/gpuplan/catalogs");
  if (const std::string d = xdg_data_home(); !d.empty()) add("XDG_DATA_HOME", d + "/gpuplan/catalogs");
  if (const std::string d = xdg_config_home(); !d.empty()) add("XDG_CONFIG_HOME", d + "/gpuplan/catalogs");
  for (const auto& p : split_path_list(std::getenv("GPUPLAN_CATALOG_PATH"))) add("GPUPLAN_CATALOG_PATH", p);
  for (const auto& p : extra) add("--catalog", p);
  return out;
}

void Catalog::merge_chain(const std::vector<std::string>& extra) {
  std::vector<Diagnostic> diags;
  for (const auto& p : catalog_paths(extra)) {
    if (p.origin == "built-in") continue;
    // Explicit paths must exist; the conventional XDG locations are optional.
    const bool explicit_path = p.origin == "--catalog" || p.origin == "GPUPLAN_CATALOG_PATH";
    if (!p.exists && explicit_path)
      fail(Exit::no_input, fmt::format("cannot read catalog '{}' (from {}): no such file or directory", p.path, p.origin));
    // The conventional locations are directories or regular files; a FIFO there would hang every
    // command. An explicit path may be a pipe (--catalog <(...)).
    std::error_code ec;
    if (p.exists && !explicit_path && !fs::is_directory(p.path, ec) && !fs::is_regular_file(p.path, ec))
      fail(Exit::no_input, fmt::format("cannot read catalog '{}' (from {}): not a directory or a regular file", p.path, p.origin));
    if (p.exists) merge_path(p.path, diags);
  }
  if (!diags.empty()) {
    std::string msg;
    for (std::size_t i = 0; i < diags.size(); ++i) msg += (i ? "\n" : "") + diags[i].text();
    fail(Exit::data, msg);
  }
}

namespace {
// Whether `id` is one of the comma-separated names of the record's `aliases` (any case).
bool has_alias(const Record& r, std::string_view id) {
  const std::string list = r.text("aliases");
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string_view name(list.data() + start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty() && same_ignoring_case(name, id)) return true;
    start = end + 1;
  }
  return false;
}
}  // namespace

const Record* Catalog::find(std::string_view kind, std::string_view id) const {
  auto k = kinds_.find(kind);
  if (k == kinds_.end()) return nullptr;
  auto r = k->second.find(std::string(id));
  if (r != k->second.end()) return &r->second;
  // Ids are case-insensitive (H100-SXM is h100-sxm): an exact match first, then case folded.
  for (const auto& [key, rec] : k->second)
    if (same_ignoring_case(key, id)) return &rec;
  // Then the names a record lists in `aliases` (Ollama's llama3.1:8b, a chip's short name).
  for (const auto& [key, rec] : k->second)
    if (has_alias(rec, id)) return &rec;
  return nullptr;
}

const Record& Catalog::get(std::string_view kind, std::string_view id) const {
  if (const Record* r = find(kind, id)) return *r;
  const KindSpec* spec = find_kind(kind);
  std::string hint = suggest_ids(std::string(id), ids(kind));
  fail(Exit::usage, fmt::format("unknown {} '{}'{} (see 'gpuplan catalog list {}')", spec ? spec->singular : kind, id,
                                hint.empty() ? "" : "; did you mean " + hint + "?", kind));
}

std::vector<const Record*> Catalog::list(std::string_view kind) const {
  std::vector<const Record*> out;
  auto k = kinds_.find(kind);
  if (k != kinds_.end())
    for (const auto& [id, r] : k->second) out.push_back(&r);
  return out;
}

std::vector<std::string> Catalog::ids(std::string_view kind) const {
  std::vector<std::string> out;
  for (const Record* r : list(kind)) out.push_back(r->id);
  return out;
}

}  // namespace gpuplan
