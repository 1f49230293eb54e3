#include "io/jsonl/reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "io/aiv/lines.h"
#include "io/jsonl/carried.h"
#include "io/jsonl/ccu_lines.h"
#include "io/jsonl/parallel_reader.h"
#include "io/jsonl/parser.h"
#include "io/line_reader.h"
#include "io/trace_json.h"
#include "model/describe.h"
#include "text/suggest.h"

namespace cc {

static_assert(kLinePadding >= simdjson::SIMDJSON_PADDING, "line padding too small for simdjson");

namespace {

using simdjson::dom::element;

bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (c == ' ' || c == '\t') continue;
    return c == '#';
  }
  return true;
}

// " (did you mean TRANS_MEM?)" for a mistyped task type, else "".
std::string nearest_task_type(std::string_view typed, u64 version) {
  std::vector<std::string_view> known = {"TRANS_MEM", "BATCH_TRANS_MEM", "REDUCE", "BATCH_REDUCE", "RECORD", "WAIT"};
  if (version >= 2) known.insert(known.end(), {"CCU_GRAPH", "AIV_GRAPH"});
  auto near = closest_word(typed, known);
  return near ? fmt::format(" (did you mean {}?)", *near) : std::string();
}

}  // namespace

namespace jsonl {

using simdjson::dom::element;

Finding unknown_type_finding(const Trace& t, std::string_view s, const Task& task, u64 version) {
  return make_finding(
      101, StageTag::GenGraph,
      s == "CCU_GRAPH" || s == "AIV_GRAPH"
          ? fmt::format("Task type {} on line {} needs trace format version 2 (this file is version "
                        "{}): the record cannot become a node.",
                        s, task.line, version)
          : fmt::format("Unknown task type \"{}\"{} at {}:{}: the record cannot become a node.",
                        s == "UNKNOWN" && task.tag ? t.tag_of(task) : s, nearest_task_type(s, version), t.file,
                        task.line));
}

JsonlParser JsonlParser::part_of(const JsonlParser& header) {
  const Trace& h = header.out_.trace;
  JsonlParser p(h.file);
  p.out_.trace.op = h.op;
  p.out_.trace.buffers = h.buffers;
  p.out_.trace.tags = h.tags;
  p.version_ = header.version_;
  p.header_line_ = header.header_line_;
  p.part_ = true;
  return p;
}

Status JsonlParser::parse_line(simdjson::dom::parser& parser, std::string_view text, bool header_line) {
  if (line_ > 0xffffffffu) return Error{"more than 2^32 lines are not supported"};
  element e;
  text_ = text;
  // In place (realloc_if_needed = false): LineReader leaves simdjson's
  // padding readable after every line, so no line is copied.
  auto err = parser.parse(text.data(), text.size(), false).get(e);
  if (err == simdjson::NUMBER_ERROR) return Error{"invalid number (integers must be unsigned and fit in 64 bits)"};
  if (err) return Error{fmt::format("invalid JSON: {}", simdjson::error_message(err))};
  if (!e.is_object()) return Error{"a line must be a JSON object"};
  return header_line ? header(e) : task(e);
}

Status JsonlParser::read_header(LineReader& lines) {
  simdjson::dom::parser parser;
  std::string_view text;
  const std::string& file = out_.trace.file;
  while (lines.next(text)) {
    line_ = lines.line_number();
    if (is_blank_or_comment(text)) continue;
    if (Status st = parse_line(parser, text, true); !st) return Error{fmt::format("{}:{}: {}", file, line_, st.message())};
    header_line_ = static_cast<u32>(line_);
    return {};
  }
  // A read error ends the loop like the end of the file does; only here
  // can the two be told apart.
  if (!lines.error().empty()) return Error{fmt::format("{}:{}: {}", file, lines.line_number() + 1, lines.error())};
  line_ = lines.line_number() == 0 ? 1 : lines.line_number();
  return Error{fmt::format("{}:{}: no trace header (the file holds no JSON line)", file, line_)};
}

bool JsonlParser::read_tasks(LineReader& lines, u64 end, u64 skipped) {
  simdjson::dom::parser parser;
  std::string_view text;
  while (lines.position() < end && lines.next(text)) {
    line_ = lines.line_number() - skipped;
    if (is_blank_or_comment(text)) continue;
    if (Status st = parse_line(parser, text, false); !st) {
      error_ = {line_, st.message()};
      return false;
    }
    if (stateful_) return true;
  }
  lines_read_ = lines.line_number() - skipped;
  if (!lines.error().empty()) {
    error_ = {lines_read_ + 1, lines.error(), true};
    return false;
  }
  return true;
}

Result<ReadTrace> JsonlParser::run(LineReader& lines) {
  CC_TRY(read_header(lines));
  if (!read_tasks(lines, ~u64{0}, 0)) return Error{fmt::format("{}:{}: {}", out_.trace.file, error_.line, error_.what)};
  return finish();
}

Result<ReadTrace> JsonlParser::finish() {
  Trace& t = out_.trace;
  u32 ccu_line = 0;
  if (Status st = finish_ccu_lines(t, ccu_, ccu_line); !st)
    return Error{fmt::format("{}:{}: {}", t.file, ccu_line, st.message())};
  u32 aiv_line = 0;
  if (Status st = aiv_io::finish_aiv_lines(t, header_line_, aiv_line); !st)
    return Error{fmt::format("{}:{}: {}", t.file, aiv_line, st.message())};
  std::vector<u32> new_id;
  Status st = finalize_trace(t, &new_id);
  if (st) st = finish_findings(new_id);
  if (!st) return Error{fmt::format("{}: {}", t.file, st.message())};
  return std::move(out_);
}

// The header's carried import findings come first. A carried 101, 110 (an
// HCCL VM address in no block) or 111 names a record its importer could not
// turn into a node; the converted trace keeps it as an UNKNOWN task, for
// which the reader's own 101 would report the same thing twice.
Status JsonlParser::finish_findings(const std::vector<u32>& new_id) {
  for (Finding& f : out_.findings)
    for (u32& task : f.tasks) task = new_id[task];
  CC_TRY(resolve_task_notes(out_.trace, notes_));
  if (carried_.empty()) return {};
  std::vector<Finding> all;
  CC_TRY(resolve_carried_findings(out_.trace, carried_, all));
  std::vector<u32> stand_in;
  for (const Finding& f : all) {
    if (f.code == 101 || f.code == 110 || f.code == 111) stand_in.insert(stand_in.end(), f.tasks.begin(), f.tasks.end());
    // A carried 107 at an AIV_GRAPH record: its snapshot file could not be
    // used, which the expansion must not report a second time.
    if (f.code == 107 && f.tasks.size() == 1) {
      const Task& k = out_.trace.tasks[f.tasks[0]];
      if (k.type == TaskType::AIV_GRAPH && k.notify() < out_.trace.aiv.records.size())
        out_.trace.aiv.records[k.notify()].carried = true;
    }
  }
  std::sort(stand_in.begin(), stand_in.end());
  for (Finding& f : out_.findings) {
    bool covered = f.code == 101 && f.tasks.size() == 1 &&
                   std::binary_search(stand_in.begin(), stand_in.end(), f.tasks[0]);
    if (!covered) all.push_back(std::move(f));
  }
  out_.findings = std::move(all);
  return {};
}

Status JsonlParser::notify_names(element e) {
  simdjson::dom::object o;
  if (e.get_object().get(o)) return Error{"\"notifyNames\" must be an object"};
  auto& names = out_.trace.notify_names;
  for (auto [k, v] : o) {
    u64 id = 0;
    auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), id);
    if (ec != std::errc() || p != k.data() + k.size() || k.empty() || id > 0xffffffffu)
      return Error{fmt::format("\"notifyNames\" key \"{}\" must be a notify id", k)};
    std::string_view s;
    CC_TRY(get_string(v, "notifyNames", s));
    names.emplace_back(static_cast<u32>(id), std::string(s));
  }
  std::sort(names.begin(), names.end());
  for (std::size_t i = 1; i < names.size(); ++i)
    if (names[i].first == names[i - 1].first)
      return Error{fmt::format("\"notifyNames\" names notify id {} twice", names[i].first)};
  return {};
}

// Notify ids that do not name one notify (Trace::inexact_notifies).
Status JsonlParser::inexact_notifies(element e) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return Error{"\"inexactNotifies\" must be an array of notify ids"};
  auto& ids = out_.trace.inexact_notifies;
  for (element v : a) {
    u32 id = 0;
    CC_TRY(get_u32(v, "inexactNotifies", id));
    ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return {};
}

Status JsonlParser::header(element e) {
  JsonField format, version, op, buffers, rank_buffers, name, names, inexact, carried, notes, unchecked, ccu;
  // Nothing is required here: a missing "format" says more than "lacks" (a
  // task line first, or no header at all), so the checks follow by hand.
  CC_TRY(read_fields(e,
                     {{"format", &format}, {"version", &version}, {"op", &op}, {"buffers", &buffers},
                      {"rankBuffers", &rank_buffers}, {"name", &name}, {"notifyNames", &names},
                      {"inexactNotifies", &inexact}, {"importFindings", &carried}, {"taskNotes", &notes},
                      {"unchecked", &unchecked}, {"ccu", &ccu}},
                     {"the header"}));
  std::string_view s;
  if (!format.is_valid()) {
    simdjson::dom::object o = as_object(e);
    if (o["rank"].error() == simdjson::SUCCESS || o["type"].error() == simdjson::SUCCESS)
      return Error{"a task line comes before the trace header"};
    return Error{"the first line must be the trace header with \"format\":\"collcheck-trace\""};
  }
  if (format.get_string().get(s) || s != "collcheck-trace")
    return Error{"\"format\" must be \"collcheck-trace\""};
  if (!version.is_valid()) return Error{"the header lacks \"version\""};
  u64 ver = 0;
  CC_TRY(get_u64(version, "version", ver));
  if (ver > kTraceVersion)
    return Error{fmt::format("trace format version {} is newer than this collcheck reads (version {})", ver,
                       kTraceVersion)};
  if (ver < 1) return Error{"\"version\" must be 1 or 2"};
  version_ = ver;
  if (!op.is_valid()) return Error{"the header lacks \"op\""};
  Trace& t = out_.trace;
  CC_TRY(parse_op(op, t.op));
  if (buffers.is_valid()) CC_TRY(parse_buffers(buffers, t));
  if (rank_buffers.is_valid()) CC_TRY(parse_rank_buffers(rank_buffers, t));
  if (name.is_valid()) {
    CC_TRY(get_string(name, "name", s));
    t.name = std::string(s);
  }
  if (names.is_valid()) CC_TRY(notify_names(names));
  if (inexact.is_valid()) CC_TRY(inexact_notifies(inexact));
  if (carried.is_valid()) CC_TRY(parse_carried_findings(carried, carried_));
  if (notes.is_valid()) CC_TRY(parse_task_notes(notes, notes_));
  if (unchecked.is_valid()) CC_TRY(get_bool(unchecked, "unchecked", t.unchecked));
  if (ccu.is_valid()) {
    if (ver < 2) return Error{"\"ccu\" needs trace format version 2"};
    CC_TRY(parse_ccu_header(ccu, t));
  }
  return {};
}

Status JsonlParser::slice(element e, std::string_view what, u32& index) {
  if (!e.is_object()) return Error{fmt::format("\"{}\" must be a slice object", what)};
  JsonField rank, type, offset, len, recorded;
  CC_TRY(read_fields(e,
                     {{"rank", &rank, kRequired}, {"type", &type, kRequired}, {"offset", &offset, kRequired},
                      {"len", &len, kRequired}, {"recordedLen", &recorded}},
                     {"slice", what}));
  Slice s;
  u64 r = 0;
  CC_TRY(get_u64(rank, "rank", r));
  s.rank = r > 0xffffffffu ? kNone : static_cast<u32>(r);  // outside the operator: 201
  std::string_view buf;
  CC_TRY(get_string(type, "type", buf));
  if (!valid_buffer_name(buf))
    return Error{fmt::format("buffer type \"{}\" must match [A-Z][A-Z0-9_]*", buf)};
  Trace& t = out_.trace;
  s.buf = t.buffers.intern(buf);
  if (s.buf == kNoBuf) return Error{"too many buffer types"};
  if (t.op.in_place && s.buf == kOutput) s.buf = kInput;
  CC_TRY(get_u64(offset, "offset", s.offset));
  CC_TRY(get_u64(len, "len", s.len));
  if (t.slices.size() >= 0xfffffffeu) return Error{"too many slices"};
  index = static_cast<u32>(t.slices.size());
  // What an imported record said the slice was, when larger than the bytes
  // the task moves (Trace::recorded_lens; written by `convert`).
  if (recorded.is_valid()) {
    u64 rec = 0;
    if (what != "dst") return Error{fmt::format("slice \"{}\": only a copy's \"dst\" may have \"recordedLen\"", what)};
    CC_TRY(get_u64(recorded, "recordedLen", rec));
    if (rec <= s.len)
      return Error{fmt::format("slice \"dst\": \"recordedLen\" {} must be larger than \"len\" {}", rec, s.len)};
    t.recorded_lens.emplace_back(index, rec);
  }
  t.slices.push_back(s);
  return {};
}

// Sources of a group: `e` is one slice or an array of slices.
Status JsonlParser::group_srcs(element e, std::string_view what, Group& g) {
  Trace& t = out_.trace;
  g.first_src = static_cast<u32>(t.slices.size());
  g.src_count = 0;
  if (e.is_array()) {
    for (element s : as_array(e)) {
      u32 idx;
      CC_TRY(slice(s, what, idx));
      ++g.src_count;
    }
    return {};
  }
  u32 idx;
  CC_TRY(slice(e, what, idx));
  g.src_count = 1;
  return {};
}

// Reads the groups of a data task. Sources are stored before the destination
// of each group so that a group's sources are contiguous.
Status JsonlParser::data_groups(element e, Task& task, bool batch, bool reduce) {
  Trace& t = out_.trace;
  if (t.groups.size() >= 0xfffffffeu) return Error{"too many tasks"};
  task.set_first_group(static_cast<u32>(t.groups.size()));
  auto one_group = [&](element obj, std::string_view ctx) -> Status {
    JsonField src, srcs, dst;
    CC_TRY(read_fields(obj, {{"src", &src}, {"srcs", &srcs}, {"dst", &dst}}, {ctx}));
    Group g;
    Status err;
    if (reduce) {
      if (src.is_valid() && srcs.is_valid()) return Error{fmt::format("{} has both \"src\" and \"srcs\"", ctx)};
      if (srcs.is_valid() && !srcs.is_array()) return Error{"\"srcs\" must be an array of slices"};
      if (src.is_valid() && !src.is_object()) return Error{"\"src\" must be a slice object"};
      // No source at all is representable: stage 2 reports it (201).
      g.first_src = static_cast<u32>(t.slices.size());
      if (srcs.is_valid()) err = group_srcs(srcs, "srcs", g);
      else if (src.is_valid()) err = group_srcs(src, "src", g);
    } else {
      if (!src.is_valid()) return Error{fmt::format("{} lacks \"src\"", ctx)};
      if (!src.is_object()) return Error{"\"src\" must be a slice object"};
      err = group_srcs(src, "src", g);
    }
    if (!err) return err;
    if (!dst.is_valid()) return Error{fmt::format("{} lacks \"dst\"", ctx)};
    CC_TRY(slice(dst, "dst", g.dst));
    if (reduce && !t.recorded_lens.empty() && t.recorded_lens.back().first == g.dst)
      return Error{"only a copy's \"dst\" may have \"recordedLen\" (a reduce's lengths must agree)"};
    t.groups.push_back(g);
    task.set_group_count(task.group_count() + 1);
    return {};
  };
  if (!batch) return one_group(e, fmt::format("{}", name(task.type)));
  std::string_view key = reduce ? "groups" : "pairs";
  element list;
  if (as_object(e)[key].get(list))
    return Error{fmt::format("{} lacks \"{}\"", name(task.type), key)};
  simdjson::dom::array a;
  if (list.get_array().get(a)) return Error{fmt::format("\"{}\" must be an array", key)};
  for (element g : a) {
    if (!g.is_object()) return Error{fmt::format("each of \"{}\" must be an object", key)};
    CC_TRY(one_group(g, reduce ? "a group" : "a pair"));
  }
  return {};
}

Status JsonlParser::task(element e) {
  JsonField rank, stream, type, link, dtype, reduce, notify, wait_rank, record_rank, tag, index_lost;
  JsonField ccu, format, aiv;
  // "rank", "stream" and "type" are required only once the line is known
  // to be a task (not a CCU data line, not a second header).
  CC_TRY(read_fields(e,
                     {{"rank", &rank}, {"stream", &stream}, {"type", &type}, {"link", &link}, {"tag", &tag},
                      {"dataType", &dtype}, {"reduceOp", &reduce}, {"notifyId", &notify},
                      {"waitRank", &wait_rank}, {"recordRank", &record_rank}, {"notifyIndexLost", &index_lost},
                      {"ccu", &ccu}, {"aiv", &aiv}, {"format", &format}},
                     {"task"}));
  if (format.is_valid()) return Error{"a second trace header"};
  Trace& t = out_.trace;
  if (ccu.is_valid()) {
    if (version_ < 2) return Error{"CCU data lines need trace format version 2"};
    if (part_) {
      stateful_ = true;
      return {};
    }
    return parse_ccu_line(e, t, ccu_, static_cast<u32>(line_));
  }
  if (aiv.is_valid()) {
    if (version_ < 2) return Error{"AIV snapshot lines need trace format version 2"};
    if (part_) {
      stateful_ = true;
      return {};
    }
    return aiv_io::parse_aiv_line(aiv, text_, as_object(e).size() == 1, t, static_cast<u32>(line_));
  }
  if (!rank.is_valid()) return Error{"task lacks \"rank\""};
  if (!stream.is_valid()) return Error{"task lacks \"stream\""};
  if (!type.is_valid()) return Error{"task lacks \"type\""};
  Task task;
  task.line = static_cast<u32>(line_);
  u64 r = 0;
  CC_TRY(get_u64(rank, "rank", r));
  if (r >= t.op.ranks)
    return Error{fmt::format("task rank {} is outside the operator's ranks 0..{}", r, t.op.ranks - 1)};
  task.rank = static_cast<u32>(r);
  CC_TRY(get_u32(stream, "stream", task.stream));
  std::string_view s;
  CC_TRY(get_string(type, "type", s));
  if (link.is_valid()) {
    std::string_view l;
    CC_TRY(get_string(link, "link", l));
    auto lk = parse_link(l);
    if (!lk) return Error{fmt::format("unknown link \"{}\" (SDMA, RDMA, CCU, LOCAL)", l)};
    task.link = *lk;
  }
  if (tag.is_valid()) {
    std::string_view g;
    CC_TRY(get_string(tag, "tag", g));
    task.tag = t.intern_tag(g);
  }
  if (t.tasks.size() >= 0xfffffffeu) return Error{"too many tasks"};
  // CCU_GRAPH and AIV_GRAPH exist from format version 2 on; in a version-1
  // file they are unknown types like any other (a 101 below, not exit 2).
  auto tt = parse_task_type(s);
  if (s == "CCU_GRAPH" && version_ >= 2) tt = TaskType::CCU_GRAPH;
  if (s == "AIV_GRAPH" && version_ >= 2) tt = TaskType::AIV_GRAPH;
  if (!tt) {
    // An unknown type is a finding about the operator (code 101: the record
    // cannot become a node), not malformed input: the task stays as an
    // UNKNOWN placeholder so that its stream keeps its order and its line.
    task.type = TaskType::UNKNOWN;
    if (!tag.is_valid() && s != "UNKNOWN") task.tag = t.intern_tag(s);  // the name as written
    t.tasks.push_back(task);
    u32 index = static_cast<u32>(t.tasks.size() - 1);  // file order; finish() renumbers
    if (part_) {
      unknown_.emplace_back(index, std::string(s));  // its text needs the line in the file
      return {};
    }
    Finding f = unknown_type_finding(t, s, task, version_);
    f.tasks.push_back(index);
    out_.findings.push_back(std::move(f));
    return {};
  }
  task.type = *tt;
  switch (task.type) {
    case TaskType::TRANS_MEM:
    case TaskType::BATCH_TRANS_MEM:
    case TaskType::REDUCE:
    case TaskType::BATCH_REDUCE: {
      bool red = is_reduce_task(task.type);
      task.data_type = t.op.data_type;
      task.reduce_op = t.op.reduce_op;
      if (red && dtype.is_valid()) {
        CC_TRY(get_string(dtype, "dataType", s));
        auto d = parse_data_type(s);
        if (!d) return Error{fmt::format("unknown data type \"{}\"", s)};
        task.data_type = *d;
      }
      if (red && reduce.is_valid()) {
        CC_TRY(get_string(reduce, "reduceOp", s));
        auto o = parse_reduce_op(s);
        if (!o) return Error{fmt::format("unknown reduce op \"{}\"", s)};
        task.reduce_op = *o;
      }
      bool batch = task.type == TaskType::BATCH_TRANS_MEM || task.type == TaskType::BATCH_REDUCE;
      CC_TRY(data_groups(e, task, batch, red));
      break;
    }
    case TaskType::RECORD:
    case TaskType::WAIT: {
      if (!notify.is_valid()) return Error{fmt::format("{} lacks \"notifyId\"", name(task.type))};
      u32 id = 0;
      CC_TRY(get_u32(notify, "notifyId", id));
      task.set_notify(id);
      JsonField peer = task.type == TaskType::RECORD ? wait_rank : record_rank;
      task.set_peer(task.rank);
      if (peer.is_valid()) {
        u64 p = 0;
        const char* key = task.type == TaskType::RECORD ? "waitRank" : "recordRank";
        CC_TRY(get_u64(peer, key, p));
        task.set_peer(p > 0xffffffffu ? kNone : static_cast<u32>(p));  // outside: 101
      }
      // The source dropped the notify index (kTaskNotifyIndexLost).
      if (index_lost.is_valid()) {
        bool lost = false;
        CC_TRY(get_bool(index_lost, "notifyIndexLost", lost));
        if (lost) task.flags |= kTaskNotifyIndexLost;
      }
      break;
    }
    case TaskType::CCU_GRAPH:
      if (part_) {
        stateful_ = true;
        return {};
      }
      CC_TRY(parse_ccu_task(e, t, task));
      break;
    case TaskType::AIV_GRAPH:
      if (part_) {
        stateful_ = true;
        return {};
      }
      CC_TRY(aiv_io::parse_aiv_task(e, t, task));
      break;
    case TaskType::UNKNOWN:
      break;
  }
  t.tasks.push_back(task);
  return {};
}

}  // namespace jsonl

using jsonl::JsonlParser;

Result<ReadTrace> read_jsonl_stream(std::FILE* f, const std::string& display) {
  LineReader lines;
  lines.attach(f);
  JsonlParser p(display);
  return p.run(lines);
}

Result<ReadTrace> read_jsonl_file(const std::string& path, unsigned threads) {
  if (threads > 1)
    if (std::optional<Result<ReadTrace>> r = read_jsonl_parallel(path, threads)) return std::move(*r);
  LineReader lines;
  if (Status st = lines.open(path); !st) return Error{fmt::format("{}: cannot open: {}", path, st.message())};
  JsonlParser p(path);
  // Task lines are rarely shorter than 64 bytes (a ring's are about 96):
  // reserving for the file's real size spares the copies of growing
  // ten-million-entry arrays (reserved pages never written cost nothing; at
  // one entry per 96 bytes a 10^7-task ring overflowed by a few thousand
  // tasks and copied its whole task array once).
  std::error_code ec;
  std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (!ec) p.reserve(bytes / 64);
  return p.run(lines);
}

Result<ReadTrace> read_jsonl_string(const std::string& text, const std::string& display) {
  LineReader lines;
  lines.attach_memory(text);
  JsonlParser p(display);
  return p.run(lines);
}

}  // namespace cc
