#include "io/aiv/lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "io/aiv/snapshot_reader.h"
#include "io/json_fields.h"

namespace cc::aiv_io {

using simdjson::dom::element;

namespace {

// The text of the value of a line `{"aiv":VALUE}` as written ("" when the
// line is spelt otherwise): a trace keeps the snapshot exactly as it came.
std::string_view raw_value(std::string_view line) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && blank(line.back())) line.remove_suffix(1);
  if (!line.starts_with("{\"aiv\"") || !line.ends_with("}")) return {};
  line = line.substr(6, line.size() - 7);
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  if (line.empty() || line.front() != ':') return {};
  line.remove_prefix(1);
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && blank(line.back())) line.remove_suffix(1);
  return line.starts_with("{") && line.ends_with("}") ? line : std::string_view();
}

}  // namespace

Status parse_aiv_line(element value, std::string_view text, bool single_key, Trace& t, u32 line) {
  simdjson::dom::object o;
  if (value.get_object().get(o)) return Error{"the value of \"aiv\" must be a snapshot object"};
  JsonField rank, launch;
  CC_TRY(read_fields(value, {{"rank", &rank, kRequired}, {"launchIndex", &launch, kRequired}},
                     {"the \"aiv\" snapshot"}));
  u64 r = 0, l = 0;
  if (Status st = get_u64(rank, "rank", r); !st) return Error{"the \"aiv\" snapshot's " + st.message()};
  if (r >= t.op.ranks)
    return Error{fmt::format("the \"aiv\" snapshot's rank {} is outside the operator's ranks 0..{}", r, t.op.ranks - 1)};
  if (Status st = get_u64(launch, "launchIndex", l); !st) return Error{"the \"aiv\" snapshot's " + st.message()};
  for (const AivSnapshot& s : t.aiv.snapshots)
    if (s.rank == r && s.launch == l)
      return Error{fmt::format("a second snapshot of rank {} launch {} (the first is on line {})", r, l, s.line)};
  AivSnapshot s;
  parse_snapshot(value, s);
  // The snapshot as written (re-serialised when the line is spelt otherwise).
  std::string_view raw = single_key ? raw_value(text) : std::string_view();
  s.json = raw.empty() ? simdjson::to_string(value) : std::string(raw);
  s.rank = static_cast<u32>(r);
  s.launch = l;
  s.line = line;
  t.aiv.snapshots.push_back(std::move(s));
  return {};
}

Status parse_aiv_task(element e, Trace& t, Task& task) {
  JsonField launch;
  CC_TRY(read_fields(e, {{"launch", &launch, kRequired}}, {"AIV_GRAPH"}));
  u64 l = 0;
  if (Status st = get_u64(launch, "launch", l); !st) return Error{"AIV_GRAPH " + st.message()};
  if (t.aiv.records.size() >= 0xfffffffeu) return Error{"too many AIV_GRAPH tasks"};
  task.set_notify(static_cast<u32>(t.aiv.records.size()));
  t.aiv.records.push_back({l, {}, false});
  return {};
}

Status finish_aiv_lines(const Trace& t, u32 header_line, u32& line) {
  if (!t.aiv.has_input()) return {};
  for (const char* reserved : {"AIV_UB", "AIV_COMM"}) {
    auto it = t.buffers.ids.find(reserved);
    if (it == t.buffers.ids.end()) continue;
    BufId b = it->second;
    line = kNone;
    for (const Task& k : t.tasks)
      for (u32 gi = 0; gi < k.group_count(); ++gi) {
        const Group& g = t.group(k, gi);
        for (u32 i = 0; i <= g.src_count; ++i)
          if (t.slices[i < g.src_count ? g.first_src + i : g.dst].buf == b) line = std::min(line, k.line);
      }
    if (line == kNone) line = header_line;  // named in "buffers" or "rankBuffers"
    return Error{fmt::format("buffer type {} is reserved in a trace with AIV data (its memory comes from the snapshots)",
                       reserved)};
  }
  return {};
}

void attach_snapshot_files(Trace& t, const std::string& dir, std::vector<Finding>& findings) {
  namespace fs = std::filesystem;
  std::set<std::string> used;
  std::map<std::pair<u32, u64>, u32> read;  // (rank, launch) -> snapshot
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    const Task& k = t.tasks[id];
    if (k.type != TaskType::AIV_GRAPH || (k.flags & kTaskAiv) || k.notify() >= t.aiv.records.size()) continue;
    const AivRecord& rec = t.aiv.records[k.notify()];
    if (read.count({k.rank, rec.launch})) continue;
    std::string name = aiv_snapshot_file_name(k.rank, rec.launch);
    used.insert(name);
    std::string path = (fs::path(dir) / name).string();
    auto fail = [&](std::string why) {
      Finding f = make_finding(107, StageTag::GenGraph,
                               fmt::format("AIV launch {} of rank {}: its snapshot {} cannot be used: {}.", rec.launch,
                                           k.rank, name, why));
      f.details.push_back("Record : " + rec.origin);
      f.tasks.push_back(id);
      findings.push_back(std::move(f));
      t.aiv.records[k.notify()].carried = true;
    };
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      fail(fmt::format("there is no such file in {}", dir.empty() ? "." : dir));
      continue;
    }
    Result<AivSnapshot> s = read_snapshot_file(path);
    if (!s) {
      fail(s.error().message);
      continue;
    }
    if (s->rank != k.rank || s->launch != rec.launch) {
      fail(fmt::format("it says rank {} launch {}", s->rank, s->launch));
      continue;
    }
    read[{k.rank, rec.launch}] = static_cast<u32>(t.aiv.snapshots.size());
    t.aiv.snapshots.push_back(std::move(*s));
  }
  // Other snapshot files: other operators or runs (aiv.md §2.2).
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir.empty() ? "." : dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::string n = it->path().filename().string();
    if (n.starts_with("hcclvm_aiv_rank") && n.ends_with("_task.json") && !used.count(n))
      t.aiv.unused_files.push_back(n);
  }
  std::sort(t.aiv.unused_files.begin(), t.aiv.unused_files.end());
}

}  // namespace cc::aiv_io
