#include "graph/reach.h"

namespace cc {

Reachability::Reachability(const Trace& trace, const TaskGraph& graph)
    : trace_(trace), g_(graph), reached_(trace.streams.size(), kNone) {}

bool Reachability::happens_before(u32 a, u32 b) {
  if (a == b) return true;
  u32 sa = g_.stream_of[a], sb = g_.stream_of[b];
  if (sa == sb) return a < b;
  // Without a simulated position (a deadlocked part) search without pruning.
  bool prune = g_.executed(a) && g_.executed(b);
  u32 limit = prune ? g_.tau[b] : kNone;
  if (prune && g_.tau[a] > limit) return false;

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
    for (u32 t = from; t < stop && !found; ++t) {
      if (prune && g_.tau[t] > limit) break;
      ++scanned_;
      follow(t);
    }
  }
  for (u32 s : touched_) reached_[s] = kNone;
  touched_.clear();
  return found;
}

}  // namespace cc
