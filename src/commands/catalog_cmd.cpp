// SPDX-License-Identifier: Apache-2.0
// `gpuplan catalog list|show|check|paths`.
#include <filesystem>
#include <fmt/format.h>

#include "gpuplan/catalog/import.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {
namespace {

Value field_value(const FieldValue& f) {
  switch (f.type) {
    case FieldType::boolean: return Value(f.flag);
    case FieldType::integer:
    case FieldType::number: return Value(f.number);
    default: return Value(f.text);
  }
}

// Human form of a field: SI prefixes for rates, IEC for capacities.
std::string field_text(const FieldSpec* spec, const FieldValue& f) {
  if (f.type == FieldType::boolean) return f.flag ? "yes" : "no";
  if (f.type == FieldType::text || f.type == FieldType::choice) return f.text;
  if (!spec || f.type == FieldType::integer) return format_exact(f.number);
  switch (spec->kind) {
    case QuantityKind::bytes: return format_iec(f.number);
    case QuantityKind::byte_rate: return format_si(f.number, "B/s");
    case QuantityKind::flop_rate: return format_si(f.number, "FLOP/s");
    case QuantityKind::power: return format_si(f.number, "W");
    case QuantityKind::duration: return format_duration(f.number);
    case QuantityKind::money: return format_usd(f.number);
    case QuantityKind::money_per_hour: return format_usd(f.number) + "/h";
    case QuantityKind::money_per_kwh: return format_usd(f.number) + "/kWh";
    case QuantityKind::count: return format_si(f.number, "");
    default: return format_sig(f.number);
  }
}

Value record_json(const Record& r) {
  Value v = Value::object();
  v.set("id", r.id);
  for (const auto& [name, f] : r.fields) v.set(name, field_value(f));
  return v;
}

// The columns a listing shows per kind, besides id and name.
std::vector<std::string> list_columns(std::string_view kind) {
  if (kind == "accelerators")
    return {"memory_bytes", "memory_bw_bytes_per_s", "bf16_flops_per_s", "fp8_flops_per_s", "tdp_w", "scale_up_domain"};
  if (kind == "models") return {"params_total", "params_active", "layers", "hidden", "heads", "kv_heads", "max_context"};
  if (kind == "interconnects") return {"scope", "bw_per_direction_bytes_per_s", "latency_s"};
  if (kind == "apis") return {"provider", "model", "usd_per_m_input", "usd_per_m_output", "as_of"};
  if (kind == "prices") return {"accelerator", "provider", "commitment", "usd_per_gpu_hour", "usd_per_device", "as_of"};
  if (kind == "servers") return {"accelerator", "devices", "max_power_w", "usd"};
  if (kind == "sites") return {"pue", "usd_per_kwh", "grid_gco2_per_kwh", "rack_power_w"};
  if (kind == "storage") return {"unit", "read_bytes_per_s", "write_bytes_per_s", "capacity_bytes"};
  return {};
}

std::string header_for(const FieldSpec* spec, const std::string& name) {
  if (!spec) return name;
  switch (spec->kind) {
    case QuantityKind::bytes: return name.substr(0, name.rfind("_bytes"));
    case QuantityKind::byte_rate: return name.substr(0, name.rfind("_bytes_per_s")) + " (B/s)";
    case QuantityKind::flop_rate: return name.substr(0, name.rfind("_flops_per_s")) + " (FLOP/s)";
    case QuantityKind::power: return name.substr(0, name.rfind("_w"));
    default: return name;
  }
}

const KindSpec& kind_or_fail(const std::string& kind) {
  const KindSpec* spec = find_kind(kind);
  if (!spec) fail(Exit::usage, unknown_kind_message(kind));
  return *spec;
}

}  // namespace

Document run_catalog_list(const Catalog& catalog, const CatalogListOptions& opts) {
  // No kind: the kinds, with how many records each holds.
  if (opts.kind.empty()) {
    Document doc;
    doc.data = Value::array();
    Table t;
    t.headers = {"kind", "records"};
    t.right = {false, true};
    for (const auto& k : catalog_kinds()) {
      const auto n = catalog.list(std::string(k.kind)).size();
      Value row = Value::object();
      row.set("kind", std::string(k.kind));
      row.set("records", static_cast<double>(n));
      doc.data.push(row);
      t.add_row({std::string(k.kind), std::to_string(n)});
    }
    doc.tables.push_back(t);
    doc.lines.push_back("gpuplan catalog list KIND lists one kind's records");
    return doc;
  }
  const KindSpec& spec = kind_or_fail(opts.kind);
  std::string kind(spec.kind);
  Document doc;
  doc.data = Value::array();
  Table t;
  std::vector<std::string> cols = list_columns(kind);
  t.headers = {"id", "name"};
  t.right = {false, false};
  for (const auto& c : cols) {
    t.headers.push_back(header_for(find_field(spec, c), c));
    const FieldSpec* fs = find_field(spec, c);
    t.right.push_back(fs && (fs->type == FieldType::number || fs->type == FieldType::integer));
  }
  t.headers.push_back("source");
  t.right.push_back(false);
  Table csv = t;
  csv.headers = {"id", "name"};
  for (const auto& c : cols) csv.headers.push_back(c);
  csv.headers.push_back("source");
  for (const Record* r : catalog.list(kind)) {
    doc.data.push(record_json(*r));
    std::vector<std::string> row{r->id, r->text("name")}, raw{r->id, r->text("name")};
    for (const auto& c : cols) {
      const FieldValue* f = r->get(c);
      row.push_back(f ? field_text(find_field(spec, c), *f) : "-");
      raw.push_back(f ? scalar_text(field_value(*f)) : "");
    }
    std::string src = r->text("source");
    raw.push_back(src);
    if (src.size() > 48) src = src.substr(0, 45) + "...";
    row.push_back(src + (r->flag("estimate") ? " (estimate)" : ""));
    t.add_row(row);
    csv.add_row(raw);
  }
  doc.tables.push_back(t);
  doc.csv = std::move(csv);
  return doc;
}

Document run_catalog_show(const Catalog& catalog, const CatalogShowOptions& opts) {
  const Record* found = nullptr;
  std::vector<std::string> all_ids;
  for (const auto& k : catalog_kinds()) {
    if (!opts.kind.empty() && kind_or_fail(opts.kind).kind != k.kind) continue;
    if (!found) found = catalog.find(k.kind, opts.id);
    for (auto& id : catalog.ids(k.kind)) all_ids.push_back(id);
  }
  if (!found) {
    std::string hint = suggest(opts.id, all_ids);
    fail(Exit::usage, fmt::format("unknown id '{}'{} (see 'gpuplan catalog list KIND')", opts.id,
                                  hint.empty() ? "" : "; did you mean " + hint + "?"));
  }
  const KindSpec& spec = *find_kind(found->kind);
  Document doc;
  doc.data = record_json(*found);
  Table t;
  t.title = fmt::format("{} {}", spec.singular, found->id);
  t.headers = {"field", "value", "raw"};
  t.right = {false, true, false};
  for (const auto& [name, f] : found->fields) {
    if (name == "source" || name == "note") continue;
    t.add_row({name, field_text(find_field(spec, name), f), scalar_text(field_value(f))});
  }
  doc.tables.push_back(t);
  doc.lines.push_back("source: " + found->text("source"));
  if (found->has("note")) doc.lines.push_back("note: " + found->text("note"));
  if (found->flag("estimate")) doc.lines.push_back("estimate: some figures are unverified (see note)");
  for (const auto& o : found->origins) doc.lines.push_back("defined in: " + o);
  return doc;
}

Document run_catalog_check(const std::vector<std::string>& files, bool& ok) {
  Catalog catalog = Catalog::builtin();
  std::vector<Diagnostic> diags;
  Document doc;
  doc.data = Value::array();
  Table t;
  t.headers = {"file", "status", "problems"};
  t.right = {false, false, true};
  ok = true;
  for (const auto& f : files) {
    std::error_code ec;
    if (std::filesystem::is_directory(f, ec) && catalog_files(f).empty())
      fail(Exit::no_input, fmt::format("catalog check: no catalog file (*.toml) in '{}'", f));
    std::size_t before = diags.size();
    catalog.merge_path(f, diags);  // throws Error(no_input) for an unreadable file
    std::size_t n = diags.size() - before;
    Value entry = Value::object();
    entry.set("file", f);
    entry.set("valid", n == 0);
    Value errors = Value::array();
    for (std::size_t i = before; i < diags.size(); ++i) errors.push(diags[i].text());
    entry.set("errors", errors);
    doc.data.push(entry);
    t.add_row({f, n == 0 ? "ok" : "invalid", std::to_string(n)});
    if (n) ok = false;
  }
  doc.tables.push_back(t);
  for (const auto& d : diags) doc.lines.push_back(d.text());
  return doc;
}

std::string run_catalog_import(const std::string& path) {
  import_model(path);  // checked as a catalog file: an invalid record is exit 65 before anything is printed
  return "# A record for catalogs/models.toml or your own catalog file (gpuplan-catalog(5)).\n" + import_model_toml(path);
}

Document run_catalog_paths(const std::vector<std::string>& extra) {
  Document doc;
  doc.data = Value::array();
  Table t;
  t.headers = {"order", "origin", "path", "exists"};
  t.right = {true, false, false, false};
  int i = 1;
  for (const auto& p : catalog_paths(extra)) {
    Value v = Value::object();
    v.set("order", i);
    v.set("origin", p.origin);
    v.set("path", p.path);
    v.set("exists", p.exists);
    doc.data.push(v);
    t.add_row({std::to_string(i), p.origin, p.path, p.exists ? "yes" : "no"});
    ++i;
  }
  doc.tables.push_back(t);
  doc.lines.push_back("Later entries override earlier ones, record by record and field by field.");
  return doc;
}

}  // namespace gpuplan
