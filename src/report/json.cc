#include "report/json.h"

#include <fmt/format.h>

#include "collcheck_version.h"
#include "text/json.h"

namespace cc {

namespace {

void append_finding(std::string& out, const Finding& f) {
  out += fmt::format("{{\"code\":{},\"name\":{},\"stage\":{},\"severity\":\"{}\",\"message\":{}",
                     f.code, json_quote(finding_name(f)), json_quote(name(f.stage)),
                     f.severity == Severity::Error ? "error" : "warning", json_quote(f.message));
  // Cascades: "rootCause": N on the finding to fix, "consequenceOf": N on
  // each one it causes (absent on independent findings).
  if (f.cause_id) out += fmt::format(",\"rootCause\":{}", f.cause_id);
  if (f.consequence_of) out += fmt::format(",\"consequenceOf\":{}", f.consequence_of);
  out += ",\"details\":[";
  for (std::size_t i = 0; i < f.details.size(); ++i)
    out += (i ? "," : "") + json_quote(f.details[i]);
  out += "]";
  if (f.bytes)
    out += fmt::format(",\"rank\":{},\"buffer\":{},\"range\":[{},{}]", f.bytes->rank, json_quote(f.bytes->buffer),
                       f.bytes->begin, f.bytes->end);
  out += ",\"tasks\":[";
  for (std::size_t i = 0; i < f.refs.size(); ++i) {
    const TaskRef& t = f.refs[i];
    out += fmt::format("{}{{\"rank\":{},\"stream\":{},\"index\":{},\"line\":{}", i ? "," : "", t.rank, t.stream,
                       t.index, t.line);
    if (!t.file.empty()) out += ",\"file\":" + json_quote(t.file);
    if (t.ccu_node != kNone) out += fmt::format(",\"ccu\":{{\"node\":{}}}", t.ccu_node);
    if (!t.aiv_pipe.empty()) {
      out += fmt::format(",\"aiv\":{{\"launch\":{},\"block\":{},\"pipe\":\"{}\",\"pos\":{}", t.aiv_launch,
                         t.aiv_block, t.aiv_pipe, t.aiv_pos);
      if (t.aiv_task_id != kNone) out += fmt::format(",\"taskId\":{}", t.aiv_task_id);
      out += '}';
    }
    out += '}';
  }
  out += "]}";
}

void append_result(std::string& out, const CheckResult& r) {
  out += fmt::format("{{\"file\":{},\"verdict\":\"{}\",\"order\":[{},{}],\"findings\":[",
                     json_quote(r.input), r.pass ? "PASS" : "FAIL", r.order_file, r.order_case);
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    if (i) out += ",";
    append_finding(out, r.findings[i]);
  }
  out += "],\"counts\":[";
  bool first = true;
  for (const auto& [key, n] : r.totals) {
    const auto& [sev, code, tag] = key;
    out += fmt::format("{}{{\"code\":{},\"name\":{},\"severity\":\"{}\",\"count\":{}}}",
                       first ? "" : ",", code,
                       json_quote(code == 0 ? tag : std::string(code_name(code))),
                       sev == Severity::Error ? "error" : "warning", n);
    first = false;
  }
  out += fmt::format("],\"stats\":{{\"ranks\":{},\"streams\":{},\"tasks\":{},\"ms\":{:.3f},"
                     "\"readMs\":{:.3f},\"errors\":{},\"warnings\":{},\"rootCauses\":{},\"consequences\":{},\"stages\":{{",
                     r.ranks, r.streams, r.tasks, r.ms, r.read_ms, r.errors, r.warnings, r.root_causes,
                     r.consequences);
  for (std::size_t i = 0; i < r.times.size(); ++i)
    out += fmt::format("{}{}:{:.3f}", i ? "," : "", json_quote(r.times[i].stage), r.times[i].ms);
  out += "}}}";
}

}  // namespace

std::string json_summary(const ReportSummary& s) {
  return fmt::format("\"summary\":{{\"operators\":{},\"pass\":{},\"fail\":{},\"unusable\":{},\"exitStatus\":{}}}",
                     s.operators, s.pass, s.fail, s.unusable, s.exit_status);
}

std::string format_json_report(const std::vector<CheckResult>& results,
                               const std::vector<InputError>& errors, int exit_status) {
  ReportSummary sum;
  sum.operators = results.size();
  for (const CheckResult& r : results) (r.pass ? sum.pass : sum.fail)++;
  sum.unusable = errors.size();
  sum.exit_status = exit_status;
  std::string out = fmt::format("{{\"tool\":\"collcheck\",\"version\":\"{}\",\"schemaVersion\":{},{},\"inputs\":[",
                                kCollcheckVersion, kReportSchemaVersion, json_summary(sum));
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i) out += ",\n";
    append_result(out, results[i]);
  }
  out += "],\"errors\":[";
  for (std::size_t i = 0; i < errors.size(); ++i)
    out += fmt::format("{}{{\"file\":{},\"message\":{},\"order\":[{}]}}", i ? "," : "",
                       json_quote(errors[i].input), json_quote(errors[i].message), errors[i].order_file);
  out += "]}\n";
  return out;
}

}  // namespace cc
