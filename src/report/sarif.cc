#include "report/sarif.h"

#include <fmt/format.h>

#include <map>

#include "collcheck_version.h"
#include "report/error_docs.h"
#include "text/json.h"

namespace cc {

std::string sarif_uri(std::string_view path) {
  std::string out;
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\') c = '/';
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '.' || c == '_' || c == '~' || c == '/';
    if (plain) out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

namespace {

// A rule's id: the code as a string, or the named warning's tag.
std::string rule_id(const Finding& f) { return f.code == 0 ? f.tag : std::to_string(f.code); }

const char* level(Severity s) { return s == Severity::Error ? "error" : "warning"; }

struct Rule {
  std::string id, name;
  StageTag stage;
  Severity severity;
  std::size_t index = 0;
};

std::string rule_json(const Rule& r) {
  // The rule's text is its section of docs/ERRORS.md: the summary as the
  // short description, the section as help (Markdown, and as plain text the
  // same, which reads well enough). A code without a section keeps its name.
  const ErrorDoc* doc = find_error_doc(r.id);
  std::string text = doc && !doc->summary.empty() ? std::string(doc->summary)
                     : r.id == r.name             ? fmt::format("{} (warning of stage {})", r.name, name(r.stage))
                                                  : fmt::format("{} {} (stage {})", r.id, r.name, name(r.stage));
  std::string out = fmt::format("{{\"id\":{},\"name\":{},\"shortDescription\":{{\"text\":{}}},",
                                json_quote(r.id), json_quote(r.name), json_quote(text));
  if (doc && !doc->body.empty())
    out += fmt::format("\"help\":{{\"text\":{0},\"markdown\":{0}}},", json_quote(doc->body));
  out += fmt::format("\"defaultConfiguration\":{{\"level\":\"{}\"}},\"properties\":{{\"stage\":{}}}}}",
                     level(r.severity), json_quote(name(r.stage)));
  return out;
}

std::string task_name(const TaskRef& t) {
  std::string s = fmt::format("{}/{}/{}", t.rank, t.stream, t.index);
  if (!t.aiv_pipe.empty()) s += fmt::format(":L{}.b{}.{}[{}]", t.aiv_launch, t.aiv_block, t.aiv_pipe, t.aiv_pos);
  if (t.ccu_node != kNone) s += fmt::format(":{}", t.ccu_node);
  return s;
}

// A task's location: its file and line where the input has lines, and its
// rank/stream/index as a logical location always (a database's tasks have
// only that).
std::string location_json(const TaskRef& t, const std::string& file, int id) {
  std::string out = "{";
  if (id >= 0) out += fmt::format("\"id\":{},", id);
  const std::string& where = t.file.empty() ? file : t.file;
  out += fmt::format("\"physicalLocation\":{{\"artifactLocation\":{{\"uri\":{}}}", json_quote(sarif_uri(where)));
  if (t.line) out += fmt::format(",\"region\":{{\"startLine\":{}}}", t.line);
  out += "}";
  out += fmt::format(",\"logicalLocations\":[{{\"name\":{},\"kind\":\"object\"}}]", json_quote(task_name(t)));
  out += fmt::format(",\"message\":{{\"text\":{}}}}}", json_quote("task " + task_name(t)));
  return out;
}

std::string file_location_json(const std::string& file) {
  return fmt::format("{{\"physicalLocation\":{{\"artifactLocation\":{{\"uri\":{}}}}}}}", json_quote(sarif_uri(file)));
}

std::string result_json(const Finding& f, const Rule& rule, const CheckResult& r) {
  // The operator of an input holding several: "FILE#CASE".
  std::string text;
  if (r.input != r.file) text = r.input + ": ";
  text += f.message;
  for (const std::string& d : f.details) text += "\n  " + d;
  std::string out = fmt::format("{{\"ruleId\":{},\"ruleIndex\":{},\"level\":\"{}\",\"message\":{{\"text\":{}}}",
                                json_quote(rule.id), rule.index, level(f.severity), json_quote(text));
  out += ",\"locations\":[";
  out += f.refs.empty() ? file_location_json(r.file) : location_json(f.refs[0], r.file, -1);
  out += "]";
  if (f.refs.size() > 1) {
    out += ",\"relatedLocations\":[";
    for (std::size_t i = 1; i < f.refs.size(); ++i)
      out += (i > 1 ? "," : "") + location_json(f.refs[i], r.file, static_cast<int>(i));
    out += "]";
  }
  out += fmt::format(",\"properties\":{{\"operator\":{},\"stage\":{}", json_quote(r.input), json_quote(name(f.stage)));
  if (f.bytes)
    out += fmt::format(",\"rank\":{},\"buffer\":{},\"range\":[{},{}]", f.bytes->rank, json_quote(f.bytes->buffer),
                       f.bytes->begin, f.bytes->end);
  out += "}}";
  return out;
}

}  // namespace

std::string format_sarif_report(const std::vector<CheckResult>& results, const std::vector<InputError>& errors) {
  // Rules in order of code (named warnings, code 0, by tag first).
  std::map<std::pair<u16, std::string>, Rule> rules;
  for (const CheckResult& r : results)
    for (const Finding& f : r.findings) {
      auto key = std::make_pair(f.code, f.code == 0 ? f.tag : std::string());
      if (!rules.count(key)) rules[key] = Rule{rule_id(f), finding_name(f), f.stage, f.severity};
    }
  std::size_t n = 0;
  for (auto& [key, rule] : rules) rule.index = n++;

  std::string out = fmt::format(
      "{{\"$schema\":\"https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{{"
      "\"tool\":{{\"driver\":{{\"name\":\"collcheck\",\"version\":\"{}\",\"rules\":[",
      kCollcheckVersion);
  n = 0;
  for (const auto& [key, rule] : rules) out += (n++ ? ",\n" : "\n") + rule_json(rule);
  out += "]}},\"results\":[";
  n = 0;
  for (const CheckResult& r : results)
    for (const Finding& f : r.findings) {
      const Rule& rule = rules.at({f.code, f.code == 0 ? f.tag : std::string()});
      out += (n++ ? ",\n" : "\n") + result_json(f, rule, r);
    }
  out += fmt::format("],\"invocations\":[{{\"executionSuccessful\":{}", errors.empty() ? "true" : "false");
  if (!errors.empty()) {
    out += ",\"toolExecutionNotifications\":[";
    for (std::size_t i = 0; i < errors.size(); ++i)
      out += fmt::format("{}{{\"level\":\"error\",\"message\":{{\"text\":{}}},\"locations\":[{}]}}", i ? ",\n" : "\n",
                         json_quote(errors[i].message), file_location_json(errors[i].input));
    out += "]";
  }
  out += "}]}]}\n";
  return out;
}

}  // namespace cc
