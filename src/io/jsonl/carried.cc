#include "io/jsonl/carried.h"

#include <fmt/format.h>

#include <algorithm>

#include "text/json.h"
#include "io/trace_json.h"

namespace cc {

using simdjson::dom::element;

std::string carried_findings_json(const Trace& t, const std::vector<Finding>& findings) {
  std::string out = "[";
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    out += fmt::format("{}{{\"code\":{},\"name\":{},\"stage\":{},\"severity\":\"{}\",\"message\":{},\"details\":[",
                       i ? "," : "", f.code, json_quote(finding_name(f)), json_quote(name(f.stage)),
                       f.severity == Severity::Error ? "error" : "warning", json_quote(f.message));
    for (std::size_t d = 0; d < f.details.size(); ++d) out += (d ? "," : "") + json_quote(f.details[d]);
    out += "],\"tasks\":[";
    for (std::size_t k = 0; k < f.tasks.size(); ++k) {
      const Task& task = t.tasks[f.tasks[k]];
      out += fmt::format("{}{{\"rank\":{},\"stream\":{},\"index\":{}}}", k ? "," : "", task.rank, task.stream,
                         task.index);
    }
    out += "]}";
  }
  return out + "]";
}

namespace {

std::string parse_position(element p, CarriedFinding::Position& pos) {
  if (!p.is_object()) return "a task must be an object {\"rank\",\"stream\",\"index\"}";
  JsonField r, st, i;
  for (auto [k, v] : as_object(p)) {
    if (k == "rank") r = v;
    else if (k == "stream") st = v;
    else if (k == "index") i = v;
  }
  if (!r.is_valid() || !st.is_valid() || !i.is_valid()) return "a task needs \"rank\", \"stream\" and \"index\"";
  std::string err;
  if (!(err = get_u64(r, "rank", pos.rank)).empty()) return err;
  if (!(err = get_u64(st, "stream", pos.stream)).empty()) return err;
  return get_u64(i, "index", pos.index);
}

// The task id at a position of the finalized trace, or kNone.
u32 task_at(const Trace& t, const CarriedFinding::Position& p) {
  auto it = std::lower_bound(t.streams.begin(), t.streams.end(), p, [](const Stream& s, const auto& q) {
    return u64{s.rank} != q.rank ? u64{s.rank} < q.rank : u64{s.id} < q.stream;
  });
  if (it == t.streams.end() || it->rank != p.rank || it->id != p.stream || p.index >= it->task_count) return kNone;
  return it->first_task + static_cast<u32>(p.index);
}

std::string parse_one(element e, CarriedFinding& c) {
  if (!e.is_object()) return "each of \"importFindings\" must be an object";
  JsonField code, name_, stage, severity, message, details, tasks;
  for (auto [k, v] : as_object(e)) {
    if (k == "code") code = v;
    else if (k == "name") name_ = v;
    else if (k == "stage") stage = v;
    else if (k == "severity") severity = v;
    else if (k == "message") message = v;
    else if (k == "details") details = v;
    else if (k == "tasks") tasks = v;
  }
  Finding& f = c.finding;
  std::string err;
  u64 n = 0;
  if (!code.is_valid()) return "an import finding lacks \"code\"";
  if (!(err = get_u64(code, "code", n)).empty()) return err;
  if (n > 999) return fmt::format("import finding code {} is not an error code", n);
  f.code = static_cast<u16>(n);
  f.severity = code_severity(f.code);
  std::string_view s;
  if (stage.is_valid()) {
    if (!(err = get_string(stage, "stage", s)).empty()) return err;
    auto st = parse_stage_tag(s);
    if (!st) return fmt::format("unknown stage \"{}\"", s);
    f.stage = *st;
  }
  if (severity.is_valid()) {
    if (!(err = get_string(severity, "severity", s)).empty()) return err;
    if (s != "error" && s != "warning") return "\"severity\" must be \"error\" or \"warning\"";
    f.severity = s == "error" ? Severity::Error : Severity::Warning;
  }
  if (name_.is_valid()) {
    if (!(err = get_string(name_, "name", s)).empty()) return err;
    if (s != code_name(f.code)) f.tag = std::string(s);
  }
  if (message.is_valid()) {
    if (!(err = get_string(message, "message", s)).empty()) return err;
    f.message = std::string(s);
  }
  if (details.is_valid()) {
    if (!details.is_array()) return "\"details\" must be an array of strings";
    for (element d : as_array(details)) {
      if (!(err = get_string(d, "details", s)).empty()) return err;
      f.details.emplace_back(s);
    }
  }
  if (tasks.is_valid()) {
    if (!tasks.is_array()) return "\"tasks\" must be an array";
    for (element p : as_array(tasks)) {
      CarriedFinding::Position pos;
      if (!(err = parse_position(p, pos)).empty()) return err;
      c.positions.push_back(pos);
    }
  }
  return {};
}

}  // namespace

std::string parse_carried_findings(element e, std::vector<CarriedFinding>& out) {
  if (!e.is_array()) return "\"importFindings\" must be an array";
  for (element f : as_array(e)) {
    CarriedFinding c;
    std::string err = parse_one(f, c);
    if (!err.empty()) return err;
    out.push_back(std::move(c));
  }
  return {};
}

std::string resolve_carried_findings(const Trace& t, std::vector<CarriedFinding>& carried,
                                     std::vector<Finding>& out) {
  for (CarriedFinding& c : carried) {
    for (const CarriedFinding::Position& p : c.positions) {
      u32 id = task_at(t, p);
      if (id == kNone)
        return fmt::format("\"importFindings\" names task {}/{}/{}, which the trace lacks", p.rank, p.stream,
                           p.index);
      c.finding.tasks.push_back(id);
    }
    out.push_back(std::move(c.finding));
  }
  return {};
}

std::string task_notes_json(const Trace& t) {
  std::string out = "[";
  for (std::size_t i = 0; i < t.task_notes.size(); ++i) {
    const Task& k = t.tasks[t.task_notes[i].first];
    out += fmt::format("{}{{\"rank\":{},\"stream\":{},\"index\":{},\"note\":{}}}", i ? "," : "", k.rank,
                       k.stream, k.index, json_quote(t.task_notes[i].second));
  }
  return out + "]";
}

std::string parse_task_notes(element e, std::vector<CarriedFinding>& out) {
  if (!e.is_array()) return "\"taskNotes\" must be an array";
  for (element n : as_array(e)) {
    CarriedFinding c;
    CarriedFinding::Position pos;
    std::string err = parse_position(n, pos);
    if (!err.empty()) return "\"taskNotes\": " + err;
    std::string_view note;
    element v;
    if (n["note"].get(v) || !(err = get_string(v, "note", note)).empty()) return "a task note needs \"note\"";
    c.positions.push_back(pos);
    c.finding.message = std::string(note);
    out.push_back(std::move(c));
  }
  return {};
}

std::string resolve_task_notes(Trace& t, std::vector<CarriedFinding>& notes) {
  for (CarriedFinding& c : notes) {
    u32 id = task_at(t, c.positions[0]);
    if (id == kNone)
      return fmt::format("\"taskNotes\" names task {}/{}/{}, which the trace lacks", c.positions[0].rank,
                         c.positions[0].stream, c.positions[0].index);
    t.task_notes.emplace_back(id, std::move(c.finding.message));
  }
  return {};
}

}  // namespace cc
