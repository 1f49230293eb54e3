#include "graph/reach.h"

namespace cc {

Reachability::Reachability(const Trace& trace, const TaskGraph& graph, bool eager_order2)
    : trace_(trace), g_(graph), reached_(trace.streams.size(), kNone) {
  if (eager_order2 && graph.complete) tau2_ = reverse_priority_order(trace, graph);
  next_out_.resize(graph.task_count + 1);
  for (const Stream& s : trace.streams) {
    u32 end = s.first_task + s.task_count, next = end;
    for (u32 t = end; t-- > s.first_task;) {
      bool out = (trace.tasks[t].type == TaskType::RECORD && graph.partner[t] != kNone) ||
                 (graph.has_explicit_edges() && graph.out_begin[t + 1] > graph.out_begin[t]);
      if (out) next = t;
      next_out_[t] = next;
    }
  }
  next_out_[graph.task_count] = graph.task_count;
}

bool Reachability::happens_before(u32 a, u32 b) {
  if (a == b) return true;
  u32 sa = g_.stream_of[a], sb = g_.stream_of[b];
  if (sa == sb) return a < b;
  // Without a simulated position (a deadlocked part) search without pruning.
  bool prune = g_.executed(a) && g_.executed(b);
  u32 limit = prune ? g_.tau[b] : kNone;
  if (prune && g_.tau[a] > limit) return false;
  if (prune && tau2_.empty() && g_.complete && scanned_ > g_.task_count)
    tau2_ = reverse_priority_order(trace_, g_);
  bool prune2 = prune && !tau2_.empty();
  u32 limit2 = prune2 ? tau2_[b] : kNone;
  if (prune2 && tau2_[a] > limit2) return false;

  bool found = false;
  // reached_[s]: earliest task of s known reachable; the part of s from there
  // on has been (or is queued to be) scanned. A work item scans [task, stop).
  auto reach = [&](u32 task) {
    u32 s = g_.stream_of[task];
    u32 old = reached_[s];
    if (old == kNone) {
      touched_.push_back(s);
      const Stream& st = trace_.streams[s];
      old = st.first_task + st.task_count;
    } else if (old <= task) {
      return;
    }
    reached_[s] = task;
    work_.push_back({task, old});
    if (s == sb && task <= b) found = true;
  };
  auto follow = [&](u32 t) {
    u32 p = g_.partner[t];
    if (p != kNone && trace_.tasks[t].type == TaskType::RECORD) reach(p);
    if (g_.has_explicit_edges())
      for (u32 e = g_.out_begin[t]; e < g_.out_begin[t + 1]; ++e) reach(g_.out_to[e]);
  };
  work_.clear();
  const Stream& st = trace_.streams[sa];
  if (a + 1 < st.first_task + st.task_count) reach(a + 1);
  follow(a);
  while (!found && !work_.empty()) {
    auto [from, stop] = work_.back();
    work_.pop_back();
    for (u32 t = next_out_[from]; t < stop && !found; t = next_out_[t + 1]) {
      // Nothing after b in either order can be on a path to b.
      if (prune && g_.tau[t] > limit) break;
      if (prune2 && tau2_[t] > limit2) break;
      ++scanned_;
      follow(t);
    }
  }
  for (u32 s : touched_) reached_[s] = kNone;
  touched_.clear();
  return found;
}

}  // namespace cc
