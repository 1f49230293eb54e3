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
    if (!is_sync_task(k.type) || (k.flags & kTaskPrematched) || k.peer() < t.op.ranks) continue;
    if (!out.wants(101)) {
      out.count(101, Severity::Error);
      continue;
    }
    const char* key = k.type == TaskType::RECORD ? "waitRank" : "recordRank";
    std::string peer = k.peer() == kNone ? std::string("beyond 32 bits") : fmt::format("{}", k.peer());
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
      return {fmt::format("needs {} (RECORD at {}) which is blocked at {}", stream_name(t_, g_.stream_of(r)),
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

// Where a stuck head's wait-for chain ends: the chain whose head waits for
// nothing that is itself stuck (no RECORD anywhere, every RECORD consumed,
// a blocked CCU mission), or, for a cycle, the first chain of the cycle met.
// Every head whose chain ends at the same place is blocked by one cause.
// `root_of` memoises the answer for every chain met on the way, so that a
// ring of thousands of blocked ranks costs one walk, not one per rank.
u32 chain_root(const DeadlockExplainer& why, u32 head, const TaskGraph& g,
               std::unordered_map<u32, u32>& root_of) {
  std::vector<u32> path{g.chain(head)};
  std::unordered_map<u32, std::size_t> on_path{{path[0], 0}};
  u32 root = kNone;
  Blocker b = why.blocker(head);
  while (root == kNone) {
    u32 nc = b.next_chain;
    if (nc == kNone) {
      root = path.back();  // waits for nothing stuck: the end of the chain
    } else if (auto known = root_of.find(nc); known != root_of.end()) {
      root = known->second;
    } else if (auto at = on_path.find(nc); at != on_path.end()) {
      root = *std::min_element(path.begin() + static_cast<std::ptrdiff_t>(at->second), path.end());  // a cycle
    } else {
      on_path.emplace(nc, path.size());
      path.push_back(nc);
      u32 nh = why.head(nc);
      if (nh == kNone) root = nc;
      else b = why.blocker(nh);
    }
  }
  for (u32 c : path) root_of.emplace(c, root);
  return root;
}

// Root causes of the deadlock, for 102 and the 103s it leaves behind.
struct DeadlockCauses {
  std::unordered_map<u32, u32> id_of_root;  // root chain -> cause id
  std::unordered_map<u32, u32> root_of;     // stuck chain -> root chain
};

bool reported_by_expansion(const Trace& t, const DeadlockExplainer& why, u32 head) {
  // CCU nodes, and placeholders that only wait for their blocked mission,
  // are reported by the CCU and AIV expansions with the mission's state.
  const Task& k = t.tasks[head];
  return (k.flags & (kTaskCcu | kTaskAiv)) ||
         ((k.type == TaskType::CCU_GRAPH || k.type == TaskType::AIV_GRAPH) && why.waits_for_blocked_mission(head));
}

DeadlockCauses report_deadlock(const Trace& t, const TaskGraph& g, FindingSink& out) {
  DeadlockCauses causes;
  if (g.complete) return causes;
  DeadlockExplainer why(t, g);
  // Group the stuck heads by the root of their wait-for chain; a group of
  // more than one head reports its root's head first, as the cause, and
  // the others as its consequences.
  std::vector<u32> heads;
  std::unordered_map<u32, std::vector<u32>> group;  // root chain -> heads, in order
  std::vector<u32> roots;                           // in order of first appearance
  for (u32 head : g.blocked_heads) {
    if (reported_by_expansion(t, why, head)) continue;
    u32 root = chain_root(why, head, g, causes.root_of);
    auto [it, fresh] = group.try_emplace(root);
    if (fresh) roots.push_back(root);
    it->second.push_back(head);
  }
  for (u32 root : roots) {
    std::vector<u32>& members = group[root];
    u32 root_head = why.head(root);
    auto at = std::find(members.begin(), members.end(), root_head);
    // (A root the CCU or AIV expansion reports is not among the members:
    // those stay independent findings.)
    if (at != members.end() && members.size() > 1) {
      std::rotate(members.begin(), at, at + 1);  // the cause first
      causes.id_of_root[root] = static_cast<u32>(causes.id_of_root.size() + 1);
    }
    for (u32 h : members) heads.push_back(h);
  }
  for (u32 head : heads) {
    const Task& k = t.tasks[head];
    u32 root = causes.root_of[g.chain(head)];
    auto id = causes.id_of_root.find(root);
    bool is_cause = id != causes.id_of_root.end() && head == group[root].front();
    if (!out.wants(102)) {
      out.count(102, Severity::Error);
      out.count_cascade(is_cause, id != causes.id_of_root.end() && !is_cause);
      continue;
    }
    u32 s = g.stream_of(head);
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
      return fmt::format("{} {}{}{}", stream_name(t, g.stream_of(task)), describe_task(t, task),
                         text.starts_with(":") ? "" : " ", text);
    };
    f.details.push_back(step(head, b.text));
    bool cycle = false;
    for (u32 guard = 0; b.next_chain != kNone && guard < 64; ++guard) {
      u32 nc = b.next_chain;
      chain += " \u2192 " + stream_name(t, g.stream_of(g.chain_begin(nc)));
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
    if (id != causes.id_of_root.end()) {
      const std::vector<u32>& members = group[root];
      if (is_cause) {
        f.cause_id = id->second;
        std::string list;
        for (std::size_t i = 1; i < members.size() && i <= 4; ++i)
          list += fmt::format("{}{}", i > 1 ? ", " : "", stream_name(t, g.stream_of(members[i])));
        if (members.size() > 5) list += fmt::format(", \u2026 ({} more)", members.size() - 5);
        f.details.push_back(fmt::format("Root cause{}: {} other blocked stream{} hang{} on {} ({}); {}.",
                                        cycle ? " (a wait-for cycle)" : "", members.size() - 1,
                                        members.size() == 2 ? "" : "s", members.size() == 2 ? "s" : "",
                                        cycle ? "it" : "this one", list,
                                        cycle ? "break the cycle first" : "fix this one first"));
      } else {
        f.consequence_of = id->second;
        f.details.push_back(fmt::format("Consequence of the deadlock at {} (root cause {}).",
                                        task_position(t, members.front()), id->second));
      }
    }
    f.tasks.push_back(head);
    out.add(std::move(f));
  }
  return causes;
}

// The cause a RECORD left unconsumed by a deadlock belongs to: a WAIT with
// its key never ran because its stream is stuck behind that cause.
u32 record_cause(const Trace& t, const TaskGraph& g, const DeadlockCauses& causes, u32 record) {
  u32 key = g.key_of[record];
  if (key == kNone || causes.id_of_root.empty()) return 0;
  for (u32 i = g.key_begin[key]; i < g.key_begin[key + 1]; ++i) {
    u32 w = g.key_tasks[i];
    if (t.tasks[w].type != TaskType::WAIT || g.executed(w)) continue;
    auto root = causes.root_of.find(g.chain(w));
    if (root == causes.root_of.end()) continue;
    auto id = causes.id_of_root.find(root->second);
    if (id != causes.id_of_root.end()) return id->second;
  }
  return 0;
}

void report_unmatched(const Trace& t, const TaskGraph& g, const DeadlockCauses& causes, FindingSink& out) {
  for (u32 r : g.unconsumed_records) {
    if (!out.wants(103)) {
      out.count(103, Severity::Error);
      out.count_cascade(false, record_cause(t, g, causes, r) != 0);
      continue;
    }
    Finding f = make_finding(
        103, StageTag::GenGraph,
        fmt::format("{} executed but no WAIT consumed it.", describe_sync(t, r)));
    f.details.push_back("Record : " + task_line(t, r));
    if (u32 cause = record_cause(t, g, causes, r)) {
      f.consequence_of = cause;
      f.details.push_back(fmt::format("Consequence of root cause {}: the WAIT meant to consume it is blocked behind "
                                      "it.",
                                      cause));
    }
    f.tasks.push_back(r);
    out.add(std::move(f));
  }
}

}  // namespace

void check_gen_graph(const Trace& trace, const TaskGraph& graph, FindingSink& out) {
  report_invalid_syncs(trace, out);
  DeadlockCauses causes = report_deadlock(trace, graph, out);
  report_unmatched(trace, graph, causes, out);
}

}  // namespace cc
