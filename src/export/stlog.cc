#include "export/stlog.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "export/jsonl.h"
#include "text/json.h"
#include "io/stlog/params.h"
#include "io/stlog/syntax.h"
#include "model/describe.h"

namespace cc {

namespace {

constexpr u64 kMaxTopic = 0x7fffffff;  // printed with %d
constexpr u32 kMaxQueueGap = 65535;    // queue ids kept as they are up to this

bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

// A cross-rank key (notifyType, link, topic) or a local topic (§5.3).
struct StKey {
  StNotifyType type = StNotifyType::CCU;
  StLink link = StLink::CCU;
  u64 topic = 0;
  auto tie() const { return std::tie(type, link, topic); }
  bool operator<(const StKey& o) const { return tie() < o.tie(); }
};

// Parses "K(N,L)", "K(N,L,T)" (the reader's names; topic only with the CCU
// form) or "Lk(T)".
bool parse_remote_name(std::string_view s, StKey& k) {
  if (s.substr(0, 2) != "K(" || s.back() != ')') return false;
  s = s.substr(2, s.size() - 3);
  std::size_t c1 = s.find(','), c2 = s.find(',', c1 == std::string_view::npos ? c1 : c1 + 1);
  if (c1 == std::string_view::npos) return false;
  auto type = parse_st_notify_type(s.substr(0, c1));
  auto link = parse_st_link(s.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1));
  if (!type || !link) return false;
  k.type = *type;
  k.link = *link;
  k.topic = 0;
  if (c2 != std::string_view::npos) {
    std::string_view t = s.substr(c2 + 1);
    if (t.empty()) return false;
    for (char ch : t) {
      if (ch < '0' || ch > '9' || k.topic > (~u64{0} - 9) / 10) return false;
      k.topic = k.topic * 10 + static_cast<u64>(ch - '0');
    }
  }
  // The non-CCU form prints no topic: only topic 0 can be written back.
  return k.type == StNotifyType::CCU || k.topic == 0;
}

bool parse_local_name(std::string_view s, u64& topic) {
  if (s.substr(0, 3) != "Lk(" || s.back() != ')' || s.size() < 5) return false;
  topic = 0;
  for (char ch : s.substr(3, s.size() - 4)) {
    if (ch < '0' || ch > '9' || topic > (~u64{0} - 9) / 10) return false;
    topic = topic * 10 + static_cast<u64>(ch - '0');
  }
  return true;
}

StLink st_link(Link l) {
  switch (l) {
    case Link::SDMA: return StLink::SDMA;
    case Link::RDMA: return StLink::RDMA;
    case Link::CCU: return StLink::CCU;
    case Link::NONE: return StLink::INVALID_A;  // the reader leaves INVALID_A unset
    case Link::LOCAL: return StLink::SDMA;      // a remote transfer: the dispatcher's link
    case Link::AIV: return StLink::SDMA;        // never written: AIV nodes stay out of a dump
  }
  return StLink::SDMA;
}

class Writer {
 public:
  explicit Writer(const Trace& t) : t_(t) {}

  Result<StLogOutput> run(const std::string& test);

 private:
  Status buffers();
  Trace sidecar_sizes() const;
  void notify_keys();
  std::string ds(const Slice& s) const { return ds(s, s.len); }
  std::string ds(const Slice& s, u64 size) const {
    return fmt::format("DataSlice[BufferType::{}, offset={}, size={}]", buf_[s.buf], s.offset, size);
  }
  std::string link_attr(Link l) {
    if (l == Link::LOCAL) note("remote transfers with link LOCAL written with LinkProtoStub::SDMA");
    return fmt::format("link=link prototyp=LinkProtoStub::{}", name(st_link(l)));
  }
  void note(const std::string& what) { notes_[what]++; }
  void copy(const Task& k, const Slice& src, u32 dst_index, std::vector<std::string>& out);
  void reduce(const Task& k, const Slice* srcs, u32 n, const Slice& dst, std::vector<std::string>& out);
  void sync(const Task& k, std::vector<std::string>& out);
  void task(u32 id, std::vector<std::string>& out);

  const Trace& t_;
  std::vector<std::string> buf_;                // BufId -> BufferType name
  std::map<u32, StKey> remote_, local_;         // notify id -> key
  std::map<std::string, u32> notes_;
};

// Buffer types outside §4.3 are renamed onto types the trace does not use.
Status Writer::buffers() {
  std::vector<bool> used(t_.buffers.names.size(), false);
  for (const Slice& s : t_.slices)
    if (s.buf < used.size()) used[s.buf] = true;
  for (std::size_t b = 0; b < t_.sizes.declared.size() && b < used.size(); ++b)
    used[b] = used[b] || t_.sizes.declared[b] != BufferSizes::kUndeclared;
  for (const auto& [key, size] : t_.sizes.per_rank)
    if ((key & 0xffff) < used.size()) used[key & 0xffff] = true;
  std::set<std::string_view> taken;
  buf_.assign(t_.buffers.names.size(), "");
  for (BufId b = 0; b < buf_.size(); ++b)
    if (st_buffer_type_valid(t_.buffers.name(b))) buf_[b] = t_.buffers.name(b), taken.insert(t_.buffers.name(b));
  for (BufId b = 0; b < buf_.size(); ++b) {
    if (!buf_[b].empty() || !used[b]) continue;
    const std::string& n = t_.buffers.name(b);
    // A CCL buffer is most like the CCL types; anything else takes scratch first.
    std::vector<std::string_view> prefer = {"SCRATCH", "MS", "USERBUF_AIV", "AIV_COMMINFO", "INPUT_AIV", "OUTPUT_AIV",
                                            "INPUT_CCL", "OUTPUT_CCL"};
    if (n.find("CCL") != std::string::npos) prefer.insert(prefer.begin(), {"INPUT_CCL", "OUTPUT_CCL"});
    for (std::string_view p : prefer)
      if (!taken.count(p)) {
        buf_[b] = std::string(p);
        taken.insert(p);
        break;
      }
    if (buf_[b].empty())
      return Error{fmt::format("buffer type {} has no free ST buffer type to be written as (the ST format has a fixed set of buffer "
                               "types, and the trace already uses every one that is left)",
                               n)};
    note(fmt::format("buffer type {} written as BufferType::{} (the ST format has no {})", n, buf_[b], n));
  }
  return {};
}

// The sizes the sidecar declares: the trace's own, and INPUT/OUTPUT too
// wherever the reader's default for an undeclared one (the ST framework's
// size, stlog.md §6) would differ from what the trace has, so that the
// written log is checked against the same bounds.
Trace Writer::sidecar_sizes() const {
  Trace h;
  h.op = t_.op;
  h.buffers = t_.buffers;
  h.sizes = t_.sizes;
  for (BufId b : {kInput, kOutput}) {
    if ((b < t_.sizes.declared.size() && t_.sizes.declared[b] != BufferSizes::kUndeclared) ||
        !st_framework_size(t_.op, b))
      continue;
    // The size of most ranks for all, the others per rank (a root differs).
    u32 typical = op_has_root(t_.op.type) && t_.op.root == 0 && t_.op.ranks > 1 ? 1 : 0;
    u64 common = t_.buffer_size(typical, b);
    if (h.sizes.declared.size() <= b) h.sizes.declared.resize(b + 1, BufferSizes::kUndeclared);
    h.sizes.declared[b] = common;
    for (u32 r = 0; r < t_.op.ranks; ++r) {
      u64 key = (u64{r} << 16) | b;
      if (u64 size = t_.buffer_size(r, b); size != common && !t_.sizes.per_rank.count(key))
        h.sizes.per_rank[key] = size;
    }
  }
  return h;
}

// Notify ids keep the ST key their name gives (a trace read from an ST log);
// any other id gets a key of its own: a CCU-form topic for cross-rank ids,
// a local topic for local ones, the id itself when free.
void Writer::notify_keys() {
  std::map<u32, std::set<Link>> remote_links;
  std::set<u32> local_ids;
  for (const Task& k : t_.tasks) {
    if (!is_sync_task(k.type)) continue;
    if (k.peer() == k.rank) local_ids.insert(k.notify());
    else remote_links[k.notify()].insert(k.link);
  }
  std::set<StKey> taken_remote;
  std::set<u64> taken_local;
  std::vector<u32> unnamed_remote, unnamed_local;
  for (const auto& [id, links] : remote_links) {
    StKey key;
    if (parse_remote_name(t_.notify_name(id), key) && taken_remote.insert(key).second) remote_[id] = key;
    else unnamed_remote.push_back(id);
  }
  for (u32 id : local_ids) {
    u64 topic = 0;
    if (parse_local_name(t_.notify_name(id), topic) && taken_local.insert(topic).second) local_[id] = StKey{
        StNotifyType::CCU, StLink::CCU, topic};
    else unnamed_local.push_back(id);
  }
  std::map<StLink, u64> next_remote;
  for (u32 id : unnamed_remote) {
    const std::set<Link>& links = remote_links[id];
    StKey key;
    key.link = links.size() == 1 && *links.begin() != Link::LOCAL ? st_link(*links.begin()) : StLink::CCU;
    key.topic = id;
    if (id > kMaxTopic || taken_remote.count(key)) {
      u64& next = next_remote[key.link];
      for (key.topic = next; taken_remote.count(key); ++key.topic) {}
      next = key.topic + 1;
    }
    taken_remote.insert(key);
    remote_[id] = key;
  }
  u64 next_local = 0;
  for (u32 id : unnamed_local) {
    u64 topic = id;
    if (id > kMaxTopic || taken_local.count(topic)) {
      for (topic = next_local; taken_local.count(topic); ++topic) {}
      next_local = topic + 1;
    }
    taken_local.insert(topic);
    local_[id] = StKey{StNotifyType::CCU, StLink::CCU, topic};
  }
}

// A destination recorded larger than its copy is written as recorded, the
// size the reader takes back to the source's (stlog.md §5.2).
void Writer::copy(const Task& k, const Slice& src, u32 dst_index, std::vector<std::string>& out) {
  u32 r = k.rank;
  const Slice& dst = t_.slices[dst_index];
  std::string d = ds(dst, t_.recorded_len(dst_index).value_or(dst.len));
  bool local_link = k.link == Link::NONE || k.link == Link::LOCAL;
  if (src.rank == r && dst.rank == r && local_link) {
    out.push_back(fmt::format("LocalCopy[srcSlice={}, dstSlice={}]", ds(src), d));
  } else if (dst.rank == r) {
    out.push_back(fmt::format("Read[remoteRank={}, {}, localSlice={}, remoteSlice={}]", src.rank, link_attr(k.link),
                              d, ds(src)));
  } else if (src.rank == r) {
    out.push_back(fmt::format("Write[remoteRank={}, {}, localSlice={}, remoteSlice={}]", dst.rank, link_attr(k.link),
                              ds(src), d));
  } else {
    note("copies between two other ranks written as CollcheckCopy (no ST kind has neither slice on its rank)");
    out.push_back(fmt::format("CollcheckCopy[srcRank={}, srcSlice={}, dstRank={}, dstSlice={}]", src.rank, ds(src),
                              dst.rank, d));
  }
}

void Writer::reduce(const Task& k, const Slice* srcs, u32 n, const Slice& dst, std::vector<std::string>& out) {
  u32 r = k.rank;
  std::string op = fmt::format("dataType={}, reduceOp={}", st_data_type_value(k.data_type), st_reduce_op_value(k.reduce_op));
  if (k.data_type == DataType::FP8E8M0) note("data type FP8E8M0 written as CheckerDataType 0 (INT8), as HCCL prints it");
  bool local_link = k.link == Link::NONE || k.link == Link::LOCAL;
  bool all_local = dst.rank == r && std::all_of(srcs, srcs + n, [&](const Slice& s) { return s.rank == r; });
  if (all_local && local_link && n != 1) {
    std::string list;
    for (u32 i = 0; i < n; ++i) list += (i ? "," : "") + ds(srcs[i]);
    out.push_back(fmt::format("LocalBatchReduce[{}, srcSlice=[{}], dstSlice={}]", op, list, ds(dst)));
    return;
  }
  if (n != 1) note("reduces with several sources on several ranks written as one reduce per source");
  if (n == 0) {
    note("a reduce without sources whose destination is on another rank written as CollcheckReduce");
    out.push_back(fmt::format("CollcheckReduce[{}, srcSlice=[], dstRank={}, dstSlice={}]", op, dst.rank, ds(dst)));
  }
  for (u32 i = 0; i < n; ++i) {
    const Slice& s = srcs[i];
    if (s.rank == r && dst.rank == r && local_link) {
      out.push_back(fmt::format("LocalReduce[{}, srcSlice={}, dstSlice={}]", op, ds(s), ds(dst)));
    } else if (dst.rank == r) {
      out.push_back(fmt::format("ReadReduce[remoteRank={}, {}, {}, localSlice={}, remoteSlice={}]", s.rank,
                                link_attr(k.link), op, ds(dst), ds(s)));
    } else if (s.rank == r) {
      out.push_back(fmt::format("WriteReduce[remoteRank={}, {}, {}, localSlice={}, remoteSlice={}]", dst.rank,
                                link_attr(k.link), op, ds(s), ds(dst)));
    } else {
      note("reduces between two other ranks written as CollcheckReduce (no ST kind has neither slice on its rank)");
      out.push_back(fmt::format("CollcheckReduce[{}, srcRank={}, srcSlice={}, dstRank={}, dstSlice={}]", op, s.rank,
                                ds(s), dst.rank, ds(dst)));
    }
  }
}

void Writer::sync(const Task& k, std::vector<std::string>& out) {
  bool rec = k.type == TaskType::RECORD;
  if (k.peer() == k.rank) {
    out.push_back(fmt::format("{}[topicId={}]", rec ? "LocalPostTo" : "LocalWaitFrom", local_[k.notify()].topic));
    return;
  }
  const StKey& key = remote_[k.notify()];
  std::string tag = k.tag ? std::string(t_.tag_of(k)) : "INVALID";
  std::string kind = rec ? "Post" : "Wait";
  // The reader takes a notify-type key as inexact and a CCU-form one as
  // exact, and a notify-type Post/Wait tagged POST/WAIT as having lost its
  // index (stlog.md §5.3): say where the trace has it otherwise.
  bool exact = key.type == StNotifyType::CCU;
  if (exact == t_.notify_inexact(k.notify()))
    note(exact ? "notify ids the trace cannot tell apart fully written as CCU-form keys, which the reader takes as exact"
               : "exact notify ids written as notify-type keys, which the reader takes as not telling notifies apart");
  if ((!exact && tag == (rec ? "POST" : "WAIT")) != ((k.flags & kTaskNotifyIndexLost) != 0))
    note("notify index loss of a Post/Wait not expressible: the reader takes it from the tag POST/WAIT of a "
         "notify-type key");
  std::string link = fmt::format("link=link prototyp=LinkProtoStub::{}", name(key.link));
  if (key.type == StNotifyType::CCU)
    out.push_back(fmt::format("{}[remoteRank={}, {}, topicId={}, originated tag={}]", kind, k.peer(), link, key.topic, tag));
  else
    out.push_back(fmt::format("{}[remoteRank={}, {}, notifyType=NotifyTypeStub::{}, originated tag={}]", kind, k.peer(),
                              link, name(key.type), tag));
}

void Writer::task(u32 id, std::vector<std::string>& out) {
  const Task& k = t_.tasks[id];
  switch (k.type) {
    case TaskType::TRANS_MEM:
    case TaskType::BATCH_TRANS_MEM:
      if (k.group_count() != 1) note("BATCH_TRANS_MEM written as one copy per pair (later indices of the queue shift)");
      for (u32 g = 0; g < k.group_count(); ++g) {
        const Group& gr = t_.group(k, g);
        copy(k, t_.slices[gr.first_src], gr.dst, out);
      }
      return;
    case TaskType::REDUCE:
    case TaskType::BATCH_REDUCE:
      if (k.group_count() != 1) note("BATCH_REDUCE written as one reduce per group (later indices of the queue shift)");
      for (u32 g = 0; g < k.group_count(); ++g) {
        const Group& gr = t_.group(k, g);
        reduce(k, &t_.slices[gr.first_src], gr.src_count, t_.slices[gr.dst], out);
      }
      return;
    case TaskType::RECORD:
    case TaskType::WAIT:
      sync(k, out);
      return;
    case TaskType::UNKNOWN: {
      std::string_view tag = t_.tag_of(k);
      if (tag == "[CCU GRAPH]") out.push_back("[CCU GRAPH]: (its microcode is not kept)");
      else out.push_back(fmt::format("{}[]", is_identifier(tag) ? tag : std::string_view("Unknown")));
      note("records that are not tasks of the model written as their kind name without attributes");
      return;
    }
    case TaskType::CCU_GRAPH:
      note("CCU_GRAPH tasks written as \"[CCU GRAPH]\" lines without their microcode");
      out.push_back("[CCU GRAPH]: " + describe_task(t_, id));
      return;
    case TaskType::AIV_GRAPH:
      note("AIV_GRAPH tasks written as AivTaskStub[] without their snapshots");
      out.push_back("AivTaskStub[]");
      return;
  }
}

Result<StLogOutput> Writer::run(const std::string& test) {
  CC_TRY(buffers());
  notify_keys();
  StLogOutput o;
  std::string& s = o.log;
  fmt::format_to(std::back_inserter(s), "[ RUN      ] {}\n", test);
  std::vector<std::string> lines;
  std::size_t next = 0;  // first stream not yet written (streams sorted by rank, id)
  for (u32 r = 0; r < t_.op.ranks; ++r) {
    fmt::format_to(std::back_inserter(s), "{}\nrank id is {}\n", kStRankSeparator, r);
    std::size_t first = next;
    while (next < t_.streams.size() && t_.streams[next].rank == r) ++next;
    u32 max_id = first == next ? 0 : t_.streams[next - 1].id;
    bool keep_ids = max_id <= kMaxQueueGap;
    if (!keep_ids) note("stream ids above 65535 renumbered 0, 1, ... in order (queues are printed 0..Q-1)");
    u32 queues = first == next ? 0 : keep_ids ? max_id + 1 : static_cast<u32>(next - first);
    std::size_t si = first;
    for (u32 q = 0; q < queues; ++q) {
      fmt::format_to(std::back_inserter(s), "{}\nstream/queue id is {}\n", kStQueueSeparator, q);
      if (si == next || (keep_ids && t_.streams[si].id != q)) continue;  // an empty queue
      const Stream& st = t_.streams[si++];
      u32 index = 0;
      for (u32 id = st.first_task; id < st.first_task + st.task_count; ++id) {
        lines.clear();
        task(id, lines);
        for (const std::string& l : lines)
          fmt::format_to(std::back_inserter(s), "[rankId:{}, queueId:{}, index:{}] {}\n", r, q, index++, l);
      }
    }
  }
  fmt::format_to(std::back_inserter(s), "[       OK ] {} (0 ms)\n", test);
  for (const auto& [what, n] : notes_) o.notes.push_back(n > 1 ? fmt::format("{} ({}\u00d7)", what, n) : what);
  if (t_.op.known) {
    std::string& j = o.sidecar;
    j = fmt::format("{{\"test\":{},\"dump\":0,\"op\":{}", json_quote(test), jsonl_op(t_.op));
    append_buffer_sizes(j, sidecar_sizes(), buf_);
    j += "}\n";
  }
  return o;
}

}  // namespace

std::string stlog_test_name(const Trace& t) {
  std::string name = t.name;
  // A case name "Suite.Case#1" (one of several dumps of a test): the test.
  std::size_t hash = name.rfind('#');
  if (hash != std::string::npos && hash + 1 < name.size() &&
      name.find_first_not_of("0123456789", hash + 1) == std::string::npos)
    name.resize(hash);
  bool word = !name.empty() && name.find_first_of(" \t\r\n") == std::string::npos;
  // The sidecar names the test in JSON: a name that is not UTF-8 could not
  // match its RUN line there.
  for (std::size_t i = 0; word && i < name.size(); i += std::max<std::size_t>(1, utf8_sequence(name.substr(i))))
    word = utf8_sequence(name.substr(i)) != 0;
  if (word) return name;
  std::string stem = t.file.substr(t.file.find_last_of('/') == std::string::npos ? 0 : t.file.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  for (char& c : stem)
    if (!is_identifier(std::string_view(&c, 1)) && !(c >= '0' && c <= '9')) c = '_';
  return "collcheck." + (stem.empty() ? std::string("trace") : stem);
}

Result<StLogOutput> write_stlog(const Trace& trace, const std::string& test) {
  return Writer(trace).run(test.empty() ? stlog_test_name(trace) : test);
}

}  // namespace cc
