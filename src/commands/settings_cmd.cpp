// `gpuplan settings`: the settings table itself, for people and scripts.
#include "gpuplan/commands.hpp"
#include "gpuplan/settings.hpp"

namespace gpuplan {
namespace {

const char* type_name(SettingType t) {
  switch (t) {
    case SettingType::integer: return "integer";
    case SettingType::number: return "number";
    case SettingType::choice: return "choice";
    case SettingType::text: return "text";
    case SettingType::boolean: return "boolean";
  }
  return "text";
}

}  // namespace

Document run_settings(unsigned commands) {
  Document doc;
  Table t;
  t.headers = {"setting", "type", "accepted", "default", "commands", "help"};
  t.right = {false, false, false, false, false, false};
  Value list = Value::array();
  for (const Setting& s : settings_table()) {
    if (!(s.commands & commands)) continue;
    const std::string cmds = command_names(s.commands);
    t.add_row({std::string(s.name), type_name(s.type), accepted(s), std::string(s.fallback), cmds, std::string(s.help)});
    Value v = Value::object();
    v.set("name", std::string(s.name));
    v.set("type", type_name(s.type));
    v.set("accepted", accepted(s));
    v.set("default", std::string(s.fallback));
    Value c = Value::array();
    for (unsigned bit = 1; bit <= cmd_power; bit <<= 1)
      if (s.commands & bit) c.push(command_names(bit));
    v.set("commands", c);
    v.set("help", std::string(s.help));
    list.push(v);
  }
  Value data = Value::object();
  data.set("settings", list);
  doc.data = data;
  doc.tables.push_back(t);
  doc.csv = t;
  return doc;
}

}  // namespace gpuplan
