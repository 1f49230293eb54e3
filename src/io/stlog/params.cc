#include "io/stlog/params.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

#include "io/byte_source.h"
#include "io/trace_json.h"
#include "model/describe.h"
#include "model/finding.h"

namespace cc {

using simdjson::dom::element;

namespace {

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

// One JSON document of the parameters: an op object or an entry.
Status parse_document(element e, StLogParamEntry& entry) {
  if (!e.is_object()) return Error{"operator parameters must be a JSON object"};
  JsonField test, dump, op, buffers, rank_buffers, type;
  CC_TRY(read_fields(e,
                     {{"test", &test}, {"dump", &dump}, {"op", &op}, {"buffers", &buffers},
                      {"rankBuffers", &rank_buffers}, {"type", &type}},
                     {"operator parameters"}));
  Trace& t = entry.header;
  if (!op.is_valid()) {
    if (!type.is_valid())
      return Error{"expected an operator object {\"type\",\"ranks\",...} or a line {\"test\",\"dump\",\"op\",...}"};
    return parse_op(e, t.op);
  }
  CC_TRY(parse_op(op, t.op));
  if (test.is_valid()) {
    std::string_view s;
    CC_TRY(get_string(test, "test", s));
    entry.test = std::string(s);
  }
  if (dump.is_valid()) {
    if (!entry.test) return Error{"\"dump\" needs \"test\" (the dump index counts within one test)"};
    u64 d = 0;
    CC_TRY(get_u64(dump, "dump", d));
    entry.dump = d;
  }
  if (buffers.is_valid()) CC_TRY(parse_buffers(buffers, t));
  if (rank_buffers.is_valid()) CC_TRY(parse_rank_buffers(rank_buffers, t));
  return {};
}

Status parse_text(const simdjson::padded_string& text, u64 line, const std::string& display,
                       simdjson::dom::parser& parser, StLogParams& out) {
  element e;
  auto err = parser.parse(text).get(e);
  if (err) return Error{fmt::format("{}:{}: invalid JSON: {}", display, line, simdjson::error_message(err))};
  StLogParamEntry entry;
  entry.where = fmt::format("{}:{}", display, line);
  if (Status st = parse_document(e, entry); !st) return Error{fmt::format("{}: {}", entry.where, st.message())};
  for (const StLogParamEntry& other : out.entries)
    if (other.test == entry.test && other.dump == entry.dump)
      return Error{fmt::format("{}: a second entry for the same dumps as {}", entry.where, other.where)};
  out.entries.push_back(std::move(entry));
  return {};
}

}  // namespace

Result<StLogParams> parse_stlog_params(const std::string& text, const std::string& display) {
  StLogParams out;
  simdjson::dom::parser parser;
  // One document (an op object, possibly over several lines), else JSON Lines.
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return Error{fmt::format("{}:1: no operator parameters", display)};
  element e;
  simdjson::padded_string whole(text);
  if (!parser.parse(whole).get(e)) {
    u64 line = 1 + static_cast<u64>(std::count(text.begin(), text.begin() + static_cast<long>(first), '\n'));
    CC_TRY(parse_text(whole, line, display, parser, out));
    return out;
  }
  std::size_t pos = 0;
  u64 line = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view l(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++line;
    if (blank(l)) continue;
    CC_TRY(parse_text(simdjson::padded_string(l), line, display, parser, out));
  }
  return out;
}

Result<StLogParams> load_stlog_params(const std::string& op_arg) {
  std::size_t first = op_arg.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && op_arg[first] == '{') return parse_stlog_params(op_arg, "--op");
  std::FILE* f = std::fopen(op_arg.c_str(), "rb");
  if (!f) return Error{fmt::format("--op {}: no such file (give the op JSON or a file holding it)", op_arg)};
  std::fclose(f);
  // Small JSON files; read whole (compressed ones too, by content).
  ByteSource src;
  if (Status st = src.open(op_arg); !st) return Error{fmt::format("{}: cannot open: {}", op_arg, st.message())};
  std::string text;
  char buf[1 << 16];
  while (std::size_t n = src.read(buf, sizeof buf)) text.append(buf, n);
  if (!src.error().empty()) return Error{fmt::format("{}: {}", op_arg, src.error())};
  return parse_stlog_params(text, op_arg);
}

const StLogParamEntry* find_stlog_params(const StLogParams& params, std::string_view test, u64 dump) {
  const StLogParamEntry* best = nullptr;
  int best_rank = -1;
  for (const StLogParamEntry& e : params.entries) {
    if (e.test && *e.test != test) continue;
    if (e.dump && (!e.test || *e.dump != dump)) continue;
    int rank = (e.test ? 2 : 0) + (e.dump ? 1 : 0);
    if (rank > best_rank) best = &e, best_rank = rank;
  }
  return best;
}

std::optional<u64> st_framework_size(const Op& op, BufId buf) {
  if (!op.known) return std::nullopt;
  u64 count = 0;
  if (op.type == OpType::Scatter && buf == kInput) count = op.count;
  else if (op.type == OpType::BatchSendRecv && (buf == kInput || buf == kOutput) && !op.items.empty())
    count = op.items[0].count;
  else return std::nullopt;
  auto bytes = checked_mul(count, op.elem_size());
  return bytes ? checked_mul(*bytes, op.ranks) : std::nullopt;
}

namespace {

// A Scatter whose non-root ranks write their own INPUT relies on the room
// the ST framework's size gives it there, which a real caller need not
// allocate: one warning per operator, naming the first such write. A rank
// whose INPUT the parameters size otherwise is what its caller allocates.
void warn_scatter_relay(const Trace& t, std::vector<Finding>& findings) {
  auto room = st_framework_size(t.op, kInput);
  if (!room) return;
  u32 first = kNone;
  u64 writes = 0;
  std::vector<u32> ranks;
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    const Task& k = t.tasks[id];
    if (!is_data_task(k.type)) continue;
    bool writes_input = false;
    for (u32 g = 0; g < k.group_count(); ++g) {
      const Slice& d = t.slices[t.group(k, g).dst];
      if (d.buf != kInput || d.len == 0 || d.rank >= t.op.ranks || d.rank == t.op.root ||
          t.buffer_size(d.rank, kInput) != *room)
        continue;
      writes_input = true;
      ranks.push_back(d.rank);
    }
    if (!writes_input) continue;
    if (first == kNone) first = id;
    ++writes;
  }
  if (first == kNone) return;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string list;
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) list += fmt::format("{}{}", i ? ", " : "", ranks[i]);
  if (ranks.size() > 8) list += fmt::format(" and {} more", ranks.size() - 8);
  Finding f = make_finding(
      0, StageTag::Setting,
      fmt::format("Non-root {} of this Scatter {} as relay space ({} writing task{}). That is correct only if "
                  "every rank's send buffer holds ranks x count elements ({:#x} bytes), which HCCL's algorithm "
                  "test framework allocates on every rank; a real caller may give a non-root rank a smaller send "
                  "buffer, or none.",
                  ranks.size() == 1 ? "rank " + list : "ranks " + list,
                  ranks.size() == 1 ? "uses its own INPUT buffer" : "use their own INPUT buffers", writes,
                  writes == 1 ? "" : "s", *room));
  f.tag = "STLOG-W-SCATTER-RELAY";
  f.details.push_back("First write : " + task_line(t, first));
  f.details.push_back(fmt::format(
      "For an exact answer, give each rank's real INPUT size in the operator parameters (\"rankBuffers\", e.g. "
      "{{\"{}\":{{\"INPUT\":0}}}}): a write past it is then reported as an invalid slice (201).",
      ranks[0]));
  f.tasks.push_back(first);
  findings.push_back(std::move(f));
}

// Declares every (buffer, rank) a slice touches that has no size yet as the
// furthest byte touched in that buffer, with one 902 per buffer. A
// destination recorded larger than its copy counts as recorded, so that
// the recorded extent, which stage 2 also checks, lies inside.
void infer_bounds(Trace& t, std::vector<Finding>& findings) {
  std::vector<u64> furthest(t.buffers.names.size(), 0);
  std::vector<bool> undeclared(t.buffers.names.size(), false);
  auto recorded = t.recorded_lens.begin();
  for (u32 i = 0; i < t.slices.size(); ++i) {
    const Slice& s = t.slices[i];
    u64 len = s.len;
    if (recorded != t.recorded_lens.end() && recorded->first == i) len = (recorded++)->second;
    if (s.rank >= t.op.ranks || t.buffer_size(s.rank, s.buf) != BufferSizes::kUndeclared) continue;
    undeclared[s.buf] = true;
    u64 end = s.offset + len < s.offset ? ~u64{0} : s.offset + len;
    furthest[s.buf] = std::max(furthest[s.buf], end);
  }
  for (BufId b = 0; b < undeclared.size(); ++b) {
    if (!undeclared[b]) continue;
    if (t.sizes.declared.size() <= b) t.sizes.declared.resize(b + 1, BufferSizes::kUndeclared);
    t.sizes.declared[b] = furthest[b];
    findings.push_back(make_finding(
        902, StageTag::Setting,
        fmt::format("Bounds of {} not checked: no size for it is known (the log holds none; give it in "
                    "--op or a sidecar's \"buffers\"); declared as its furthest use, {:#x} bytes.",
                    t.buffers.name(b), furthest[b])));
  }
}

}  // namespace

Status apply_stlog_params(Trace& t, const StLogParamEntry* p, std::vector<Finding>& findings,
                               std::vector<u32>& new_ids) {
  if (p) {
    const Trace& h = p->header;
    if (h.op.ranks != t.op.ranks)
      return Error{fmt::format("the dump has {} rank{}, its operator parameters ({}) say {}", t.op.ranks,
                         t.op.ranks == 1 ? "" : "s", p->where, h.op.ranks)};
    t.op = h.op;
    for (BufId b = 0; b < h.sizes.declared.size(); ++b) {
      if (h.sizes.declared[b] == BufferSizes::kUndeclared) continue;
      BufId id = t.buffers.intern(h.buffers.name(b));
      if (id == kNoBuf) return Error{"too many buffer types"};
      if (t.sizes.declared.size() <= id) t.sizes.declared.resize(id + 1, BufferSizes::kUndeclared);
      t.sizes.declared[id] = h.sizes.declared[b];
    }
    for (auto [key, size] : h.sizes.per_rank) {
      BufId id = t.buffers.intern(h.buffers.name(static_cast<BufId>(key & 0xffff)));
      if (id == kNoBuf) return Error{"too many buffer types"};
      t.sizes.per_rank[(key >> 16 << 16) | id] = size;
    }
    if (t.op.in_place)
      for (Slice& s : t.slices)
        if (s.buf == kOutput) s.buf = kInput;
    // INPUT and OUTPUT as the ST framework allocated them, where the
    // parameters do not say otherwise: the memory the algorithm really had.
    for (BufId b : {kInput, kOutput}) {
      auto st = st_framework_size(t.op, b);
      if (!st || (b < h.sizes.declared.size() && h.sizes.declared[b] != BufferSizes::kUndeclared)) continue;
      if (t.sizes.declared.size() <= b) t.sizes.declared.resize(b + 1, BufferSizes::kUndeclared);
      t.sizes.declared[b] = *st;
    }
  }
  // Copies take the operator's data type, as in a trace (trace-format.md).
  for (Task& k : t.tasks)
    if (k.type == TaskType::TRANS_MEM) k.data_type = t.op.data_type;
  CC_TRY(finalize_trace(t, &new_ids));
  infer_bounds(t, findings);
  warn_scatter_relay(t, findings);
  return {};
}

}  // namespace cc
