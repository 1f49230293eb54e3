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
                         t.task_index(f.tasks[k]));
    }
    out += "]}";
  }
  return out + "]";
}

namespace {

Status parse_position(element p, CarriedFinding::Position& pos) {
  if (!p.is_object()) return Error{"a task must be an object {\"rank\",\"stream\",\"index\"}"};
  JsonField r, st, i;
  CC_TRY(read_fields(p, {{"rank", &r, kRequired}, {"stream", &st, kRequired}, {"index", &i, kRequired}}, {"a task"}));
  CC_TRY(get_u64(r, "rank", pos.rank));
  CC_TRY(get_u64(st, "stream", pos.stream));
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

Status parse_one(element e, CarriedFinding& c) {
  if (!e.is_object()) return Error{"each of \"importFindings\" must be an object"};
  JsonField code, name_, stage, severity, message, details, tasks;
  CC_TRY(read_fields(e,
                     {{"code", &code, kRequired}, {"name", &name_}, {"stage", &stage}, {"severity", &severity},
                      {"message", &message}, {"details", &details}, {"tasks", &tasks}},
                     {"an import finding"}));
  Finding& f = c.finding;
  u64 n = 0;
  CC_TRY(get_u64(code, "code", n));
  if (n > 999) return Error{fmt::format("import finding code {} is not an error code", n)};
  f.code = static_cast<u16>(n);
  f.severity = code_severity(f.code);
  std::string_view s;
  if (stage.is_valid()) {
    CC_TRY(get_string(stage, "stage", s));
    auto st = parse_stage_tag(s);
    if (!st) return Error{fmt::format("unknown stage \"{}\"", s)};
    f.stage = *st;
  }
  if (severity.is_valid()) {
    CC_TRY(get_string(severity, "severity", s));
    if (s != "error" && s != "warning") return Error{"\"severity\" must be \"error\" or \"warning\""};
    f.severity = s == "error" ? Severity::Error : Severity::Warning;
  }
  if (name_.is_valid()) {
    CC_TRY(get_string(name_, "name", s));
    if (s != code_name(f.code)) f.tag = std::string(s);
  }
  if (message.is_valid()) {
    CC_TRY(get_string(message, "message", s));
    f.message = std::string(s);
  }
  if (details.is_valid()) {
    if (!details.is_array()) return Error{"\"details\" must be an array of strings"};
    for (element d : as_array(details)) {
      CC_TRY(get_string(d, "details", s));
      f.details.emplace_back(s);
    }
  }
  if (tasks.is_valid()) {
    if (!tasks.is_array()) return Error{"\"tasks\" must be an array"};
    for (element p : as_array(tasks)) {
      CarriedFinding::Position pos;
      CC_TRY(parse_position(p, pos));
      c.positions.push_back(pos);
    }
  }
  return {};
}

}  // namespace

Status parse_carried_findings(element e, std::vector<CarriedFinding>& out) {
  if (!e.is_array()) return Error{"\"importFindings\" must be an array"};
  for (element f : as_array(e)) {
    CarriedFinding c;
    CC_TRY(parse_one(f, c));
    out.push_back(std::move(c));
  }
  return {};
}

Status resolve_carried_findings(const Trace& t, std::vector<CarriedFinding>& carried,
                                     std::vector<Finding>& out) {
  for (CarriedFinding& c : carried) {
    for (const CarriedFinding::Position& p : c.positions) {
      u32 id = task_at(t, p);
      if (id == kNone)
        return Error{fmt::format("\"importFindings\" names task {}/{}/{}, which the trace lacks", p.rank, p.stream,
                           p.index)};
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
                       k.stream, t.task_index(t.task_notes[i].first), json_quote(t.task_notes[i].second));
  }
  return out + "]";
}

Status parse_task_notes(element e, std::vector<CarriedFinding>& out) {
  if (!e.is_array()) return Error{"\"taskNotes\" must be an array"};
  for (element n : as_array(e)) {
    CarriedFinding c;
    CarriedFinding::Position pos;
    if (Status st = parse_position(n, pos); !st) return Error{"\"taskNotes\": " + st.message()};
    JsonField note_f;
    std::string_view note;
    CC_TRY(read_fields(n, {{"note", &note_f, kRequired}}, {"a task note"}));
    CC_TRY(get_string(note_f, "note", note));
    c.positions.push_back(pos);
    c.finding.message = std::string(note);
    out.push_back(std::move(c));
  }
  return {};
}

Status resolve_task_notes(Trace& t, std::vector<CarriedFinding>& notes) {
  for (CarriedFinding& c : notes) {
    u32 id = task_at(t, c.positions[0]);
    if (id == kNone)
      return Error{fmt::format("\"taskNotes\" names task {}/{}/{}, which the trace lacks", c.positions[0].rank,
                         c.positions[0].stream, c.positions[0].index)};
    t.task_notes.emplace_back(id, std::move(c.finding.message));
  }
  return {};
}

}  // namespace cc
