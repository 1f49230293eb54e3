#include "check/pairing.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "model/describe.h"

namespace cc {
namespace {

std::string stream_name(const Trace& t, u32 stream) {
  return fmt::format("rank{}/s{}", t.streams[stream].rank, t.streams[stream].id);
}

void report_invalid_syncs(const Trace& t, FindingSink& out) {
  for (u32 i = 0; i < t.tasks.size(); ++i) {
    const Task& k = t.tasks[i];
    if (!is_sync_task(k.type) || (k.flags & kTaskPrematched) || k.peer < t.op.ranks) continue;
    if (!out.wants(101)) {
      out.count(101, Severity::Error);
      continue;
    }
    const char* key = k.type == TaskType::RECORD ? "waitRank" : "recordRank";
    std::string peer = k.peer == kNone ? std::string("beyond 32 bits") : fmt::format("{}", k.peer);
    Finding f = make_finding(101, StageTag::GenGraph,
                             fmt::format("{} names {} {}, outside the operator's ranks 0..{}; it "
                                         "cannot become a node.",
                                         name(k.type), key, peer, t.op.ranks - 1));
    f.details.push_back("Task : " + task_line(t, i));
    f.tasks.push_back(i);
    out.add(std::move(f));
  }
}

// What a stuck chain head waits for, for the wait-for chain of a 102.
struct Blocker {
  std::string text;        // "needs rank1/s0 which is blocked at ..." or a reason
  u32 next_chain = kNone;  // the chain it waits on, if that one is stuck too
};

class DeadlockExplainer {
 public:
  DeadlockExplainer(const Trace& t, const TaskGraph& g) : t_(t), g_(g) {
    for (u32 h : g.blocked_heads) head_of_[g.chain(h)] = h;
  }

  Blocker blocker(u32 head) const {
    const Task& k = t_.tasks[head];
    u32 key = g_.key_of[head];
    if (k.type == TaskType::WAIT && key != kNone) return wait_blocker(key);
    // Blocked on explicit predecessors (imported, CCU or AIV graphs).
    u32 p = unexecuted_pred(head);
    if (p == kNone) return {": is blocked", kNone};
    if (t_.tasks[p].flags & kExpanded) {
      u32 cause = ccu_cause(p);
      if (cause != kNone && (t_.tasks[cause].flags & kTaskBlocked))
        return {fmt::format("needs its {}, which is blocked at {} {}",
                            (t_.tasks[p].flags & kTaskAiv) ? "AIV launch" : "CCU mission", task_position(t_, cause),
                            describe_task(t_, cause)),
                kNone};
      if (cause != kNone) p = cause;
    }
    u32 c = g_.chain(p);
    return {fmt::format("needs {} ({}) which is blocked at {}", task_position(t_, p), name(t_.tasks[p].type),
                        describe_head(c)),
            c};
  }

  // Whether `head` waits only for a CCU mission or AIV launch that is
  // itself blocked (the expansion reports its 102).
  bool waits_for_blocked_mission(u32 head) const {
    u32 p = unexecuted_pred(head);
    if (p == kNone || !(t_.tasks[p].flags & kExpanded)) return false;
    u32 cause = ccu_cause(p);
    return cause != kNone && (t_.tasks[cause].flags & kTaskBlocked);
  }

  // The stuck head of chain `c`, or kNone.
  u32 head(u32 c) const {
    auto it = head_of_.find(c);
    return it == head_of_.end() ? kNone : it->second;
  }

  std::string describe_head(u32 c) const {
    u32 h = head(c);
    if (h == kNone) return "?";
    return fmt::format("{} {}", task_position(t_, h), describe_task(t_, h));
  }

 private:
  static constexpr u8 kExpanded = kTaskCcu | kTaskAiv;

  u32 unexecuted_pred(u32 v) const {
    if (g_.has_stream_pred(v) && !g_.executed(v - 1)) return v - 1;  // within a chain (AIV lanes)
    if (!g_.has_explicit_edges()) return kNone;
    for (u32 e = g_.in_begin[v]; e < g_.in_begin[v + 1]; ++e)
      if (!g_.executed(g_.in_from[e])) return g_.in_from[e];
    return kNone;
  }

  // From an unexecuted CCU node up its unexecuted predecessors to what
  // holds it: a blocked CCU wait, or a task outside the CCU nodes.
  u32 ccu_cause(u32 p) const {
    for (u32 guard = 0; guard < g_.task_count; ++guard) {
      if (!(t_.tasks[p].flags & kExpanded) || (t_.tasks[p].flags & kTaskBlocked)) return p;
      u32 q = unexecuted_pred(p);
      if (q == kNone) return kNone;
      p = q;
    }
    return kNone;
  }

  Blocker wait_blocker(u32 key) const {
    u32 records = 0;
    for (u32 i = g_.key_begin[key]; i < g_.key_begin[key + 1]; ++i) {
      u32 r = g_.key_tasks[i];
      if (t_.tasks[r].type != TaskType::RECORD) continue;
      ++records;
      if (g_.executed(r)) continue;
      // The first RECORD of this key that never ran: its chain is stuck.
      u32 c = g_.chain(r);
      return {fmt::format("needs {} (RECORD at {}) which is blocked at {}", stream_name(t_, g_.stream_of[r]),
                          task_position(t_, r), describe_head(c)),
              c};
    }
    if (records == 0) return {": no RECORD with this key exists anywhere", kNone};
    return {fmt::format(": every RECORD with this key ({}) was consumed by an earlier WAIT", records),
            kNone};
  }

  const Trace& t_;
  const TaskGraph& g_;
  std::unordered_map<u32, u32> head_of_;  // stuck chain -> its head
};

void report_deadlock(const Trace& t, const TaskGraph& g, FindingSink& out) {
  if (g.complete) return;
  DeadlockExplainer why(t, g);
  for (u32 head : g.blocked_heads) {
    const Task& k = t.tasks[head];
    // CCU nodes, and placeholders that only wait for their blocked mission,
    // are reported by the CCU expansion with the mission's state.
    if ((k.flags & (kTaskCcu | kTaskAiv)) ||
        ((k.type == TaskType::CCU_GRAPH || k.type == TaskType::AIV_GRAPH) && why.waits_for_blocked_mission(head)))
      continue;
    if (!out.wants(102)) {
      out.count(102, Severity::Error);
      continue;
    }
    u32 s = g.stream_of[head];
    u32 c = g.chain(head);
    std::string what = k.type == TaskType::WAIT ? "WAIT can never be released"
                                                 : "task can never run (its predecessors are stuck)";
    Finding f = make_finding(102, StageTag::GenGraph, fmt::format("Deadlock: {} {}.", stream_name(t, s), what));
    f.details.push_back("Blocked : " + task_line(t, head));
    // Follow the wait-for chain until it ends or closes a cycle.
    std::vector<u32> seen{c};
    std::string chain = stream_name(t, s);
    Blocker b = why.blocker(head);
    auto step = [&](u32 task, const std::string& text) {
      return fmt::format("{} {}{}{}", stream_name(t, g.stream_of[task]), describe_task(t, task),
                         text.starts_with(":") ? "" : " ", text);
    };
    f.details.push_back(step(head, b.text));
    bool cycle = false;
    for (u32 guard = 0; b.next_chain != kNone && guard < 64; ++guard) {
      u32 nc = b.next_chain;
      chain += " \u2192 " + stream_name(t, g.stream_of[g.chain_begin(nc)]);
      if (std::find(seen.begin(), seen.end(), nc) != seen.end()) {
        cycle = true;
        break;
      }
      seen.push_back(nc);
      u32 nh = why.head(nc);
      if (nh == kNone) break;
      b = why.blocker(nh);
      f.details.push_back(step(nh, b.text));
    }
    f.details.push_back(fmt::format("Wait-for {}: {}", cycle ? "cycle" : "chain", chain));
    f.tasks.push_back(head);
    out.add(std::move(f));
  }
}

void report_unmatched(const Trace& t, const TaskGraph& g, FindingSink& out) {
  for (u32 r : g.unconsumed_records) {
    if (!out.wants(103)) {
      out.count(103, Severity::Error);
      continue;
    }
    Finding f = make_finding(
        103, StageTag::GenGraph,
        fmt::format("{} executed but no WAIT consumed it.", describe_sync(t, r)));
    f.details.push_back("Record : " + task_line(t, r));
    f.tasks.push_back(r);
    out.add(std::move(f));
  }
}

}  // namespace

void check_gen_graph(const Trace& trace, const TaskGraph& graph, FindingSink& out) {
  report_invalid_syncs(trace, out);
  report_deadlock(trace, graph, out);
  report_unmatched(trace, graph, out);
}

}  // namespace cc
