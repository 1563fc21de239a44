// loom_inspect: shows what the registry holds.
//
//   loom_inspect                  plugins, then every op: schema and kernels
//   loom_inspect --op Conv        one op
//   loom_inspect --json           the same as JSON (for machines)
//   loom_inspect --plugin PATH    load more plugins first (repeatable, or comma-separated)
//   loom_inspect --check PATH[,PATH...] [PATH...]
//                                 load each plugin in its own child process and report
//                                 what is wrong with it: an error, a crash (the signal),
//                                 a hang (killed after --check_timeout_s seconds) or an
//                                 exit() while loading is reported, not inherited, and
//                                 the other plugins are still checked. A plugin that
//                                 loads then has each of its kernels (on devices
//                                 present) created for an op with its schema's
//                                 defaults: a kernel reading an attribute as another
//                                 type than the schema declares fails the check. One
//                                 line per plugin, then a warning line listing the
//                                 symbols it exports besides LoomPluginInit (they can
//                                 bind to another plugin's). Exit status 0 only if all
//                                 load and pass cleanly.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/attributes.h"
#include "core/kernel_defaults_check.h"
#include "core/plugin_loader.h"
#include "core/registry.h"
#include "tools/child_process.h"
#include "tools/elf_symbols.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(std::string, op, "",
          "Show only this operator: its type (Swish) or its domain-qualified name (com.example.Swish).");
ABSL_FLAG(bool, json, false, "Print JSON instead of text (indented; see --json_compact).");
ABSL_FLAG(bool, json_compact, false, "With --json: all on one line (for tools), not indented.");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "Plugins to load after the default ones.");
ABSL_FLAG(std::vector<std::string>, check, {},
          "Load these plugins (comma-separated; more may follow as arguments), each in a child process, and report "
          "problems.");
ABSL_FLAG(int, check_timeout_s, 5,
          "With --check: seconds one plugin may take to load (its LoomPluginInit) before its child process is "
          "killed (<= 0: no limit).");

namespace loom {
namespace {

using tools::JsonString;

std::string DefaultText(const AttrSpec& a) {
  if (!a.has_default) return a.required ? "required" : "optional";
  const Argument& d = a.default_value;
  switch (a.type) {
    case LOOM_ATTR_INT: return absl::StrCat(d.i());
    case LOOM_ATTR_FLOAT: return absl::StrCat(d.f());
    case LOOM_ATTR_STRING: return absl::StrCat("\"", d.s(), "\"");
    case LOOM_ATTR_INTS: return absl::StrCat("[", absl::StrJoin(d.ints(), ", "), "]");
    case LOOM_ATTR_FLOATS: return absl::StrCat("[", absl::StrJoin(d.floats(), ", "), "]");
    default: return "";
  }
}

const char* OptionName(LoomParamOption o) {
  return o == LOOM_PARAM_OPTIONAL ? "optional" : o == LOOM_PARAM_VARIADIC ? "variadic" : "single";
}

std::string DtypeList(const std::vector<DataType>& ds, bool json) {
  std::vector<std::string> names;
  for (DataType d : ds) names.push_back(json ? JsonString(DataTypeName(d)) : DataTypeName(d));
  return json ? absl::StrCat("[", absl::StrJoin(names, ","), "]") : absl::StrJoin(names, "|");
}

// Where an op's gradient maker comes from: its schema's, a plugin's
// (RegisterGradient), or none.
std::string GradientText(const Registry& r, const OpSchema& s) {
  if (s.gradient != nullptr) return "from its schema";
  const std::string owner = r.GradientOwner(s.key());
  return owner.empty() ? "(none)" : "from plugin " + owner;
}

void PrintText(const Registry& r, const std::vector<const OpSchema*>& ops) {
  std::cout << "Plugins:\n";
  for (const PluginRecord& p : r.Plugins()) {
    std::cout << "  " << p.name << " " << p.version << "  ABI " << p.abi_version << "  " << p.path << "  ("
              << p.schemas.size() << " schemas, " << p.kernels.size() << " kernels, " << p.devices.size()
              << " devices)\n";
  }
  std::cout << "Devices: " << absl::StrJoin(r.DeviceTypes(), ", ") << "\n\nOperators (" << ops.size() << "):\n";
  for (const OpSchema* s : ops) {
    std::cout << "\n" << s->op_type << "  [" << DomainForMessages(s->domain) << "]  since "
              << s->since_version << "  from " << s->plugin << "\n";
    if (!s->doc.empty()) std::cout << "  " << s->doc << "\n";
    for (const auto& p : s->inputs) std::cout << "  input  " << p.name << ": " << p.type_str << " (" << OptionName(p.option) << ")" << (p.doc.empty() ? "" : "  " + p.doc) << "\n";
    for (const auto& p : s->outputs) std::cout << "  output " << p.name << ": " << p.type_str << " (" << OptionName(p.option) << ")" << (p.doc.empty() ? "" : "  " + p.doc) << "\n";
    for (const auto& a : s->attrs) std::cout << "  attr   " << a.name << ": " << AttrTypeName(a.type) << " = " << DefaultText(a) << (a.doc.empty() ? "" : "  " + a.doc) << "\n";
    for (const auto& c : s->type_constraints) std::cout << "  type   " << c.type_str << " in " << DtypeList(c.allowed, false) << "\n";
    auto kernels = r.KernelsFor(s->key());
    if (kernels.empty()) std::cout << "  kernel (none)\n";
    for (const KernelDef* k : kernels) std::cout << "  kernel " << k->Describe() << "\n";
    std::cout << "  gradient " << GradientText(r, *s) << "\n";
  }
}

// The schemas `name` names: "<domain>.<type>" (com.example.Swish,
// ai.onnx.Relu) that one; a bare type, that type in every domain.
std::vector<const OpSchema*> FindOps(const Registry& r, const std::string& name) {
  std::vector<const OpSchema*> out;
  const size_t dot = name.rfind('.');
  for (const OpSchema* s : r.Schemas()) {
    if (s->op_type == name ||
        (dot != std::string::npos && s->op_type == name.substr(dot + 1) && s->domain == CanonicalDomain(name.substr(0, dot)))) {
      out.push_back(s);
    }
  }
  return out;
}

// `json` (compact, as PrintJson builds it) indented by two spaces per
// level, one member or element per line.
std::string Indent(const std::string& json) {
  std::string out;
  int depth = 0;
  bool in_string = false, escaped = false;
  auto newline = [&] { out += "\n" + std::string(2 * depth, ' '); };
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; out += c; break;
      case '{':
      case '[':
        out += c;
        if (i + 1 < json.size() && (json[i + 1] == '}' || json[i + 1] == ']')) break;  // empty: {} []
        ++depth;
        newline();
        break;
      case '}':
      case ']':
        if (i > 0 && (json[i - 1] == '{' || json[i - 1] == '[')) {
          out += c;
          break;
        }
        --depth;
        newline();
        out += c;
        break;
      case ',': out += c; newline(); break;
      case ':': out += ": "; break;
      case '\n': break;
      default: out += c;
    }
  }
  return out + "\n";
}

void PrintJson(const Registry& r, const std::vector<const OpSchema*>& ops, bool indent) {
  std::string out = "{\"plugins\":[";
  bool first = true;
  for (const PluginRecord& p : r.Plugins()) {
    absl::StrAppend(&out, first ? "" : ",", "{\"name\":", JsonString(p.name), ",\"version\":", JsonString(p.version),
                    ",\"abi_version\":", p.abi_version, ",\"path\":", JsonString(p.path), "}");
    first = false;
  }
  std::vector<std::string> devs;
  for (const auto& d : r.DeviceTypes()) devs.push_back(JsonString(d));
  absl::StrAppend(&out, "],\"devices\":[", absl::StrJoin(devs, ","), "],\"ops\":[");
  first = true;
  for (const OpSchema* s : ops) {
    absl::StrAppend(&out, first ? "" : ",", "{\"name\":", JsonString(s->op_type), ",\"domain\":", JsonString(s->domain),
                    ",\"since_version\":", s->since_version, ",\"plugin\":", JsonString(s->plugin),
                    ",\"doc\":", JsonString(s->doc));
    first = false;
    auto params = [&](const char* key, const std::vector<FormalParam>& ps) {
      absl::StrAppend(&out, ",\"", key, "\":[");
      for (size_t i = 0; i < ps.size(); ++i) {
        absl::StrAppend(&out, i ? "," : "", "{\"name\":", JsonString(ps[i].name), ",\"type\":", JsonString(ps[i].type_str),
                        ",\"option\":", JsonString(OptionName(ps[i].option)), ",\"doc\":", JsonString(ps[i].doc), "}");
      }
      out += "]";
    };
    params("inputs", s->inputs);
    params("outputs", s->outputs);
    out += ",\"attributes\":[";
    for (size_t i = 0; i < s->attrs.size(); ++i) {
      const AttrSpec& a = s->attrs[i];
      absl::StrAppend(&out, i ? "," : "", "{\"name\":", JsonString(a.name), ",\"type\":", JsonString(AttrTypeName(a.type)),
                      ",\"required\":", a.required ? "true" : "false",
                      ",\"default\":", a.has_default ? JsonString(DefaultText(a)) : "null", ",\"doc\":", JsonString(a.doc), "}");
    }
    out += "],\"type_constraints\":[";
    for (size_t i = 0; i < s->type_constraints.size(); ++i) {
      const auto& c = s->type_constraints[i];
      absl::StrAppend(&out, i ? "," : "", "{\"name\":", JsonString(c.type_str), ",\"allowed\":", DtypeList(c.allowed, true), "}");
    }
    out += "],\"kernels\":[";
    auto kernels = r.KernelsFor(s->key());
    for (size_t i = 0; i < kernels.size(); ++i) {
      const KernelDef* k = kernels[i];
      absl::StrAppend(&out, i ? "," : "", "{\"device\":", JsonString(k->device), ",\"engine\":", JsonString(k->engine),
                      ",\"priority\":", k->priority, ",\"plugin\":", JsonString(k->plugin), ",\"dtypes\":{");
      for (size_t j = 0; j < k->type_constraints.size(); ++j) {
        absl::StrAppend(&out, j ? "," : "", JsonString(k->type_constraints[j].type_str), ":",
                        DtypeList(k->type_constraints[j].allowed, true));
      }
      out += "}}";
    }
    const std::string owner = r.GradientOwner(s->key());
    // {"source": "schema" | "plugin" | null, "plugin": the registering plugin}
    absl::StrAppend(&out, "],\"gradient\":{\"source\":",
                    s->gradient != nullptr ? "\"schema\"" : owner.empty() ? "null" : "\"plugin\"", ",\"plugin\":",
                    JsonString(s->gradient != nullptr ? s->plugin : owner), "}}");
  }
  out += "]}";
  std::cout << (indent ? Indent(out) : out + "\n");
}

// Each kernel plugin `p` registered (on a device this process has) created
// for an op with its schema's defaults (CreateKernelWithSchemaDefaults): the
// errors of those that read an attribute as another type than the schema
// declares. Other creation errors (a value a kernel refuses, e.g. a
// stand-in for a required attribute) are not the getters' and pass.
std::vector<std::string> KernelGetterErrors(const Registry& registry, const PluginRecord& p) {
  std::vector<std::string> out;
  for (const OpSchema* schema : registry.Schemas()) {
    for (const KernelDef* k : registry.KernelsFor(schema->key())) {
      if (k->plugin != p.name || registry.FindDevice(k->device, 0) == nullptr) continue;
      const absl::Status s = CreateKernelWithSchemaDefaults(*schema, *k);
      if (!s.ok() && s.message().find("the kernel reads attribute") != absl::string_view::npos) {
        out.push_back(absl::StrCat(k->Describe(), ": ", s.message()));
      }
    }
  }
  return out;
}

// A warning line when the plugin file exports symbols besides
// LoomPluginInit (tools/elf_symbols.h says why that matters).
void PrintExtraExports(const std::string& path) {
  absl::StatusOr<std::vector<std::string>> symbols = tools::ExportedSymbols(path);
  if (!symbols.ok()) return;  // not an ELF file: loading it has said what is wrong
  std::vector<std::string> extra;
  for (const std::string& s : *symbols) {
    if (s == "LoomPluginInit") continue;
    std::string d = tools::Demangle(s);
    if (d.size() > 120) d = d.substr(0, 117) + "...";  // template instantiations run to kilobytes
    extra.push_back(d);
  }
  if (extra.empty()) return;
  const size_t shown = std::min<size_t>(extra.size(), 5);
  std::cout << "  warning: '" << path << "' exports " << extra.size()
            << " symbol(s) besides LoomPluginInit, which can bind to another plugin's copy of the same name "
               "(link with loom_plugin's version script, tools/build_defs/plugin.bzl): "
            << absl::StrJoin(extra.begin(), extra.begin() + shown, "; ") << (extra.size() > shown ? "; ..." : "")
            << std::endl;
}

// The child's setup (the standard op set and the default plugins) gets this
// long; --check_timeout_s counts from the load of the plugin checked.
constexpr int kSetupTimeoutS = 120;

// One plugin: one line, "OK ..." or "FAIL ...". True when it loaded cleanly.
bool CheckOne(const std::string& path, int timeout_s) {
  tools::ChildResult r = tools::RunInChildTimed(
      [&](const std::function<void()>& start_timer) -> std::string {
        // The standard op set and the default plugins, except files named like
        // the one checked (it would collide with its own copy).
        auto registry = loom::MakeRegistry({}, nullptr, path.substr(path.rfind('/') + 1));
        if (!registry.ok()) return absl::StrCat("FAIL setup: ", registry.status().message());
        size_t before = (*registry)->Plugins().size();
        start_timer();
        absl::Status s = LoadPlugin(registry->get(), path);
        if (!s.ok()) return absl::StrCat("FAIL ", s.ToString());
        if ((*registry)->Plugins().size() == before) return "OK: already loaded from the default plugin folder";
        const PluginRecord p = (*registry)->Plugins().back();
        const std::vector<std::string> getters = KernelGetterErrors(**registry, p);
        if (!getters.empty()) {
          return absl::StrCat("FAIL plugin '", p.name, "': ", getters.size(),
                              " kernel(s) read attributes as other types than their schemas declare:\n  ",
                              absl::StrJoin(getters, "\n  "));
        }
        return absl::StrCat("OK plugin '", p.name, "' version ", p.version, ", ABI ", p.abi_version, ": ",
                            p.schemas.size(), " schemas, ", p.kernels.size(), " kernels, ", p.devices.size(),
                            " devices");
      },
      timeout_s, kSetupTimeoutS);
  std::string line;
  if (r.completed) {
    line = r.output;
  } else if (!r.error.empty()) {
    line = absl::StrCat("FAIL plugin '", path, "': cannot check it: ", r.Describe(timeout_s));
  } else if (!r.started) {
    line = absl::StrCat("FAIL plugin '", path, "': not checked: setting up the registry (the default plugins) ",
                        r.timed_out ? absl::StrCat("timed out after ", kSetupTimeoutS, " s") : r.Describe(timeout_s));
  } else if (r.timed_out) {
    line = absl::StrCat("FAIL plugin '", path, "' timed out after ", timeout_s,
                        " s while loading (killed; a hang in LoomPluginInit?)");
  } else if (r.signal != 0) {
    line = absl::StrCat("FAIL plugin '", path, "' crashed while loading: signal ", r.signal, " (",
                        strsignal(r.signal), ")");
  } else if (r.exited) {
    line = absl::StrCat("FAIL plugin '", path, "' exited with code ", r.exit_code,
                        " during init (it called exit() while loading)");
  } else {
    line = absl::StrCat("FAIL plugin '", path, "': the checking process ended without a report");
  }
  std::cout << line << std::endl;
  if (r.completed) PrintExtraExports(path);
  return r.completed && line.rfind("OK", 0) == 0;
}

int Check(const std::vector<std::string>& paths, int timeout_s) {
  int failed = 0;
  for (const std::string& path : paths) failed += CheckOne(path, timeout_s) ? 0 : 1;
  if (paths.size() > 1) {
    std::cout << "checked " << paths.size() << " plugins: " << paths.size() - failed << " OK, " << failed
              << " failed" << std::endl;
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Lists Loom's plugins, operator schemas and kernels. See --help.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  std::vector<std::string> check;
  for (const std::string& p : absl::GetFlag(FLAGS_check)) {
    if (!p.empty()) check.push_back(p);
  }
  if (!check.empty()) {
    for (size_t i = 1; i < args.size(); ++i) check.push_back(args[i]);
    return loom::Check(check, absl::GetFlag(FLAGS_check_timeout_s));
  }
  std::vector<std::string> warnings;
  auto registry = loom::MakeRegistry(absl::GetFlag(FLAGS_plugin), &warnings);
  if (!registry.ok()) {
    std::cerr << "loom_inspect: " << registry.status() << "\n";
    return 1;
  }
  std::vector<const loom::OpSchema*> ops = (*registry)->Schemas();
  std::string only = absl::GetFlag(FLAGS_op);
  if (!only.empty()) {
    ops = loom::FindOps(**registry, only);
    if (ops.empty()) {
      std::cerr << "loom_inspect: no operator '" << only << "' is registered\n";
      return 1;
    }
  }
  if (absl::GetFlag(FLAGS_json)) {
    loom::PrintJson(**registry, ops, !absl::GetFlag(FLAGS_json_compact));
  } else {
    loom::PrintText(**registry, ops);
  }
  return 0;
}
