#include "check/aiv_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "model/describe.h"

namespace cc {

namespace {

const AivNodeInfo* node_of(const Trace& t, u32 task, const AivLaunch** launch = nullptr) {
  u32 i = 0;
  const AivLaunch* l = aiv_launch_of(t, task, &i);
  if (!l) return nullptr;
  if (launch) *launch = l;
  return &l->nodes[i];
}

const AivSnapshot* snapshot_of(const Trace& t, const AivLaunch& l) {
  return l.snapshot != kNone ? &t.aiv.snapshots[l.snapshot] : nullptr;
}

std::string hex(u64 v) { return fmt::format("{:#x}", v); }

}  // namespace

void aiv_task_problems(const Trace& t, u32 task, std::vector<std::string>& why) {
  const AivLaunch* l = nullptr;
  const AivNodeInfo* n = node_of(t, task, &l);
  if (!n || (n->kind != AivNodeKind::Copy && n->kind != AivNodeKind::Reduce)) return;
  const AivSnapshot* s = snapshot_of(t, *l);
  if (!s) return;
  const Task& k = t.tasks[task];
  const Group& g = t.group(k, 0);
  const AivTask& st = s->cores[n->block_pos].lanes[n->pipe][n->pos];
  for (auto [si, role, named] : {std::tuple{g.first_src, "src", st.src_rank}, {g.dst, "dst", st.dst_rank}}) {
    const Slice& sl = t.slices[si];
    if (!t.aiv.is_own_buffer(sl.buf)) continue;
    std::string what = fmt::format("{} {}", role, describe_slice(t, sl));
    bool ub = t.buffers.name(sl.buf).starts_with("AIV_UB");
    if (ub && named != l->rank) {
      why.push_back(fmt::format("{}: the UB slice names rank {}, but the block runs on rank {} (a block reaches "
                                "only its own unified buffer)",
                                what, named, l->rank));
      continue;
    }
    u64 end;
    if (__builtin_add_overflow(sl.offset, sl.len, &end)) continue;  // reported by the generic rule
    u64 size = ub ? s->ub_size : s->comm_size;
    if (size && end > size)
      why.push_back(fmt::format("{}: ends at {}, past the {} ({} {} of the snapshot)", what, hex(end),
                                ub ? "block's unified buffer" : "rank's AIV_COMM buffer",
                                ub ? "ubBufferSize" : "aivCommInfoSize", hex(size)));
  }
}

bool aiv_task_valid(const Trace& t, u32 task) {
  std::vector<std::string> why;
  aiv_task_problems(t, task, why);
  return why.empty();
}

void check_aiv_single(const Trace& t, FindingSink& out) {
  if (!t.aiv.expanded) return;
  // Flag cells (aiv.md §5, 201).
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    const AivLaunch* l = nullptr;
    const AivNodeInfo* n = node_of(t, id, &l);
    if (!n || (n->kind != AivNodeKind::FlagSet && n->kind != AivNodeKind::FlagWait)) continue;
    const AivSnapshot* s = snapshot_of(t, *l);
    std::vector<std::string> why;
    std::string cell = fmt::format("cell {}:{}", n->owner, hex(n->offset));
    if (n->owner >= t.op.ranks)
      why.push_back(fmt::format("{}: owner rank {} is outside the operator's ranks 0..{}", cell, n->owner,
                                t.op.ranks - 1));
    if (n->offset % kAivCellBytes != 0)
      why.push_back(fmt::format("{}: commInfoOffset is not a multiple of the {}-byte cell", cell, kAivCellBytes));
    if (s && s->comm_size && (n->offset > s->comm_size || s->comm_size - n->offset < kAivFlagBytes))
      why.push_back(fmt::format("{}: the 4-byte flag at commInfoOffset {} ends past aivCommInfoSize {}", cell,
                                hex(n->offset), hex(s->comm_size)));
    if (why.empty()) continue;
    if (!out.wants(201)) {
      out.count(201, Severity::Error);
      continue;
    }
    Finding f = make_finding(201, StageTag::SingleTaskCheck,
                             fmt::format("Invalid flag cell in {}: {}.", task_position(t, id), why[0]));
    for (std::size_t i = 1; i < why.size(); ++i) f.details.push_back("Also : " + why[i]);
    f.details.push_back("Task : " + task_line(t, id));
    f.tasks.push_back(id);
    out.add(std::move(f));
  }
  // The sizes a snapshot gives (aiv.md §6.1).
  for (const AivLaunch& l : t.aiv.launches) {
    if (!l.expanded) continue;
    const AivSnapshot& s = t.aiv.snapshots[l.snapshot];
    std::vector<std::string> missing;
    if (!s.ub_size) missing.push_back("ubBufferSize (UB slices)");
    if (!s.comm_size) missing.push_back("aivCommInfoSize (AIV_COMM slices and flag cells)");
    if (!missing.empty()) {
      Finding f = make_finding(0, StageTag::SingleTaskCheck,
                               fmt::format("The snapshot of rank {} launch {} ({}) gives no {}: those are not "
                                           "bound-checked.",
                                           l.rank, l.launch, s.where(t.file),
                                           missing.size() == 2 ? missing[0] + " and no " + missing[1] : missing[0]));
      f.tag = "AIV-W-NO-SIZE";
      f.severity = Severity::Warning;
      f.tasks.push_back(l.placeholder);
      out.add(std::move(f));
    }
    std::vector<std::string> differ;
    auto compare = [&](bool has, u64 v, BufId buf, const char* key, const char* what) {
      if (!has) return;
      u64 size = t.buffer_size(l.rank, buf);
      if (size == BufferSizes::kUndeclared || size == v) return;
      differ.push_back(fmt::format("{} {} ({} of rank {}: {})", key, v, what, l.rank, size));
    };
    compare(s.has_in_size, s.in_size, kInput, "inBufferSize", "INPUT");
    compare(s.has_out_size, s.out_size, t.op.in_place ? kInput : kOutput, "outBufferSize", "OUTPUT");
    auto ccl = t.buffers.ids.find("CCL");
    if (ccl != t.buffers.ids.end() && s.ccl_size) compare(s.has_ccl_size, s.ccl_size, ccl->second, "cclBufferSize", "CCL");
    if (!differ.empty()) {
      std::string list;
      for (const std::string& d : differ) list += (list.empty() ? "" : "; ") + d;
      Finding f = make_finding(0, StageTag::SingleTaskCheck,
                               fmt::format("The snapshot of rank {} launch {} ({}) disagrees with the operator's "
                                           "buffers: {}.",
                                           l.rank, l.launch, s.where(t.file), list));
      f.tag = "AIV-W-SIZE-MISMATCH";
      f.severity = Severity::Warning;
      f.tasks.push_back(l.placeholder);
      out.add(std::move(f));
    }
  }
}

namespace {

i32 flag_value(const Trace& t, u32 task) {
  const AivNodeInfo* n = node_of(t, task);
  return n ? n->value : 0;
}

// The parents of `task` in the graph: its chain predecessor and explicit in-edges.
std::vector<u32> parents(const TaskGraph& g, u32 task) {
  std::vector<u32> p;
  if (g.has_stream_pred(task)) p.push_back(task - 1);
  if (g.has_explicit_edges())
    for (u32 e = g.in_begin[task]; e < g.in_begin[task + 1]; ++e) p.push_back(g.in_from[e]);
  return p;
}

void add_602(FindingSink& out, std::string message, std::vector<std::string> details, std::vector<u32> tasks) {
  if (!out.wants(602)) {
    out.count(602, Severity::Error);
    return;
  }
  Finding f = make_finding(602, StageTag::SyncCheck, std::move(message));
  f.details = std::move(details);
  f.tasks = std::move(tasks);
  out.add(std::move(f));
}

}  // namespace

void check_aiv_sync(const Trace& t, const TaskGraph& g, Reachability& reach, FindingSink& out) {
  if (!t.aiv.expanded) return;
  // Pipe events: the wait of pair k happens before the set of pair k+1.
  for (const AivEvent& e : t.aiv.events)
    for (std::size_t k = 1; k < e.pairs.size(); ++k) {
      auto [s1, w1] = e.pairs[k - 1];
      auto [s2, w2] = e.pairs[k];
      if (reach.happens_before(w1, s2)) continue;
      const AivLaunch* l = nullptr;
      const AivNodeInfo* n = node_of(t, s1, &l);
      if (!n) continue;
      add_602(out,
              fmt::format("Two uses of AIV event {}\u2192{} #{} (rank {} launch {} block {}) are not serialised: the "
                          "second SetFlag may come while the event is still raised and be lost (the events are "
                          "binary), so a WaitFlag may hang.",
                          aiv_pipe_name(n->src_pipe), aiv_pipe_name(n->dst_pipe), n->event, l->rank, l->launch,
                          n->block),
              {"First pair  : " + task_line(t, s1), "              " + task_line(t, w1),
               "Second pair : " + task_line(t, s2), "              " + task_line(t, w2),
               fmt::format("Missing order: {} does not happen before {}.", aiv_short_name(t, w1),
                           aiv_short_name(t, s2))},
              {s1, w1, s2, w2});
    }
  // Flag cells (aiv.md §6.2).
  std::vector<std::vector<u32>> seen_by(t.aiv.cells.size());  // observations per cell
  for (u32 i = 0; i < t.aiv.observations.size(); ++i) seen_by[t.aiv.observations[i].cell].push_back(i);
  for (u32 ci = 0; ci < t.aiv.cells.size(); ++ci) {
    const AivCell& c = t.aiv.cells[ci];
    std::string cell = fmt::format("cell {}:{:#x}", c.owner, c.offset);
    // 1. consecutive writes are ordered.
    for (std::size_t i = 1; i < c.writes.size(); ++i) {
      u32 a = c.writes[i - 1], b = c.writes[i];
      if (reach.happens_before(a, b)) continue;
      add_602(out, fmt::format("Two unordered SendFlags write {}: which value the cell ends up holding depends on timing.", cell),
              {"Earlier : " + task_line(t, a), "Later   : " + task_line(t, b),
               fmt::format("Missing order: {} does not happen before {}.", aiv_short_name(t, a), aiv_short_name(t, b))},
              {a, b});
    }
    // The value-changing writes, in simulated order.
    std::vector<u32> changing;  // indices into writes
    for (u32 i = 0; i < c.writes.size(); ++i)
      if (c.changed[i]) changing.push_back(i);
    for (u32 oi : seen_by[ci]) {
      const AivObservation& o = t.aiv.observations[oi];
      u32 f = o.wait;
      i32 target = flag_value(t, f);
      // k: 0 for the initial value, else 1 + the index of its producer among `changing`.
      std::size_t k = 0;
      if (o.write != kNone)
        k = 1 + static_cast<std::size_t>(std::find(changing.begin(), changing.end(), o.write) - changing.begin());
      u32 producer = o.write != kNone ? c.writes[o.write] : kNone;
      std::string seen = producer != kNone ? "the value written by " + aiv_short_name(t, producer) : "the initial 0";
      // 2. the next value-changing write comes after the wait.
      if (k < changing.size()) {
        u32 next = c.writes[changing[k]];
        if (!reach.happens_before(f, next))
          add_602(out,
                  fmt::format("The value {} needs may be overwritten before it runs: {} holds {} ({}), and {} "
                              "overwrites it unordered with the wait.",
                              aiv_short_name(t, f), cell, target, seen, aiv_short_name(t, next)),
                  {"Wait      : " + task_line(t, f),
                   "Producer  : " + (producer != kNone ? task_line(t, producer) : std::string("(initial value)")),
                   "Overwrite : " + task_line(t, next),
                   fmt::format("Missing order: {} does not happen before {}.", aiv_short_name(t, f),
                               aiv_short_name(t, next))},
                  {f, next});
      }
      // 3. an earlier interval with the same value ends before the wait is armed.
      if (k == 0) continue;
      std::size_t end = kNone;  // index into `changing` of the write that ends that interval
      for (std::size_t j = k - 1; j-- > 0;)
        if (flag_value(t, c.writes[changing[j]]) == target) {
          end = j + 1;
          break;
        }
      std::string earlier;
      if (end != kNone) earlier = "the value written by " + aiv_short_name(t, c.writes[changing[end - 1]]);
      else if (target == 0) end = 0, earlier = "the initial 0";
      if (end == kNone) continue;
      u32 closer = c.writes[changing[end]];
      bool ok = false;
      for (u32 p : parents(g, f))
        if (p != producer && reach.happens_before(closer, p)) {
          ok = true;
          break;
        }
      if (ok) continue;
      add_602(out,
              fmt::format("{} may be released early, by {}: {} held {} before {} overwrote it, and nothing orders "
                          "that overwrite before the wait is reached.",
                          aiv_short_name(t, f), earlier, cell, target, aiv_short_name(t, closer)),
              {"Wait      : " + task_line(t, f),
               "Producer  : " + (producer != kNone ? task_line(t, producer) : std::string("(initial value)")),
               "Ends the earlier value : " + task_line(t, closer),
               fmt::format("Missing order: {} does not happen before a predecessor of {} (other than its producer).",
                           aiv_short_name(t, closer), aiv_short_name(t, f))},
              {f, closer});
    }
  }
}

}  // namespace cc
