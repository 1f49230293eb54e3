#include "graph/reach.h"

#include <algorithm>

namespace cc {

Reachability::Reachability(const Trace& trace, const TaskGraph& graph, bool eager_order2)
    : trace_(trace), g_(graph), index_(std::make_shared<Index>()), next_out_(index_->next_out), prev_in_(index_->prev_in),
      fwd_(graph.chain_count(), kNone), bwd_(graph.chain_count(), kNone) {
  // Made here, read-only from now on (next_out_ and prev_in_ are bound to it).
  Index& ix = const_cast<Index&>(*index_);
  if (eager_order2 && graph.complete) tau2_ = reverse_priority_order(trace, graph);
  ix.next_out.resize(graph.task_count + 1);
  ix.prev_in.resize(graph.task_count);
  for (u32 c = 0; c < graph.chain_count(); ++c) {
    u32 begin = graph.chain_begin(c), end = graph.chain_end(c), next = end;
    for (u32 t = end; t-- > begin;) {
      if (has_out(t)) next = t;
      ix.next_out[t] = next;
    }
    u32 prev = kNone;
    for (u32 t = begin; t < end; ++t) {
      if (has_in(t)) prev = t;
      ix.prev_in[t] = prev;
    }
  }
  ix.next_out[graph.task_count] = graph.task_count;
  build_hops(ix);
}

Reachability::Reachability(const Reachability& base, Fork)
    : trace_(base.trace_), g_(base.g_), index_(base.index_), next_out_(index_->next_out), prev_in_(index_->prev_in),
      tau2_(base.tau2_), fwd_(base.g_.chain_count(), kNone), bwd_(base.g_.chain_count(), kNone) {}

void Reachability::build_hops(Index& ix) const {
  struct Edge {
    u64 pair;
    u32 to, from;
  };
  std::vector<Edge> edges;
  auto add = [&](u32 from, u32 to) {
    u64 pair = (u64{g_.chain(from)} << 32) | g_.chain(to);
    edges.push_back({pair, to, from});
  };
  for (u32 t = 0; t < g_.task_count; ++t) {
    if (trace_.tasks[t].type == TaskType::RECORD && g_.partner[t] != kNone) add(t, g_.partner[t]);
    if (g_.has_explicit_edges())
      for (u32 e = g_.out_begin[t]; e < g_.out_begin[t + 1]; ++e) add(t, g_.out_to[e]);
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    return x.pair != y.pair ? x.pair < y.pair : x.to < y.to;
  });
  ix.hops.resize(edges.size());
  ix.hop_range.reserve(edges.size() / 4 + 1);
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    u32 latest = 0;
    for (; j < edges.size() && edges[j].pair == edges[i].pair; ++j) {
      latest = std::max(latest, edges[j].from);
      ix.hops[j] = {edges[j].to, latest};
    }
    ix.hop_range[edges[i].pair] = {static_cast<u32>(i), static_cast<u32>(j)};
    i = j;
  }
}

// An edge u -> v with a <= u on a's chain and v <= b on b's chain.
bool Reachability::one_hop(u32 a, u32 b) const {
  u64 pair = (u64{g_.chain(a)} << 32) | g_.chain(b);
  auto it = index_->hop_range.find(pair);
  if (it == index_->hop_range.end()) return false;
  auto first = index_->hops.begin() + it->second.first, last = index_->hops.begin() + it->second.second;
  auto pos = std::upper_bound(first, last, b, [](u32 v, const Index::Hop& h) { return v < h.to; });
  return pos != first && std::prev(pos)->latest_from >= a;
}

bool Reachability::has_out(u32 t) const {
  return (trace_.tasks[t].type == TaskType::RECORD && g_.partner[t] != kNone) ||
         (g_.has_explicit_edges() && g_.out_begin[t + 1] > g_.out_begin[t]);
}

bool Reachability::has_in(u32 t) const {
  return (trace_.tasks[t].type == TaskType::WAIT && g_.partner[t] != kNone) ||
         (g_.has_explicit_edges() && g_.in_begin[t + 1] > g_.in_begin[t]);
}

int Reachability::quick(u32 a, u32 b) const {
  if (a == b) return 1;
  if (g_.chain(a) == g_.chain(b)) return a < b;
  if (!g_.executed(a) || !g_.executed(b)) return -1;
  if (g_.tau[a] > g_.tau[b]) return 0;
  if (!tau2_.empty() && tau2_[a] > tau2_[b]) return 0;
  return -1;
}

bool Reachability::happens_before(u32 a, u32 b) {
  int q = quick(a, b);
  if (q >= 0) return q == 1;
  // τ2 costs about one pass over the graph: build it once searching has.
  if (tau2_.empty() && g_.complete && scanned_ > g_.task_count) {
    tau2_ = reverse_priority_order(trace_, g_);
    if (tau2_[a] > tau2_[b]) return false;
  }
  if (one_hop(a, b)) return true;
  if (!g_.complete) return search_forward_only(a, b);
  return search_both(a, b);
}

// --- forward half ----------------------------------------------------------

// fwd_[s]: earliest task of chain s known reachable from a; the part of s
// from there on has been (or is queued to be) scanned. A work item scans
// [task, stop) forward.
void Reachability::reach_forward(u32 task, bool& found, u32 b) {
  u32 s = g_.chain(task);
  u32 old = fwd_[s];
  if (old == kNone) {
    fwd_touched_.push_back(s);
    old = g_.chain_end(s);
  } else if (old <= task) {
    return;
  }
  fwd_[s] = task;
  fwd_work_.push_back({task, old});
  // Meet the backward half here, or one edge away from b.
  if ((bwd_[s] != kNone && task <= bwd_[s]) || (s == g_.chain(b) && task <= b) || one_hop(task, b))
    found = true;
}

void Reachability::follow_out(u32 t, bool& found, u32 b) {
  u32 p = g_.partner[t];
  if (p != kNone && trace_.tasks[t].type == TaskType::RECORD) reach_forward(p, found, b);
  if (g_.has_explicit_edges())
    for (u32 e = g_.out_begin[t]; e < g_.out_begin[t + 1]; ++e) reach_forward(g_.out_to[e], found, b);
}

// Scans one forward stretch; every edge goes forward in τ and τ2, so the
// stretch ends at the first task after b in either order.
void Reachability::scan_forward(u32 b, bool& found) {
  auto [from, stop] = fwd_work_.back();
  fwd_work_.pop_back();
  bool prune2 = !tau2_.empty();
  u32 limit = g_.tau[b], limit2 = prune2 ? tau2_[b] : kNone;
  for (u32 t = next_out_[from]; t < stop && !found; t = next_out_[t + 1]) {
    if (g_.tau[t] > limit || (prune2 && tau2_[t] > limit2)) break;
    ++scanned_;
    follow_out(t, found, b);
  }
}

void Reachability::clear_forward() {
  for (u32 s : fwd_touched_) fwd_[s] = kNone;
  fwd_touched_.clear();
  fwd_work_.clear();
}

// A graph that could not be fully built: some tasks have no τ, so the
// search runs forward without pruning (stage 3 on a deadlocked part).
bool Reachability::search_forward_only(u32 a, u32 b) {
  bool found = false;
  bool prune = g_.executed(a) && g_.executed(b);
  if (a + 1 < g_.chain_end(g_.chain(a))) reach_forward(a + 1, found, b);
  follow_out(a, found, b);
  while (!found && !fwd_work_.empty()) {
    auto [from, stop] = fwd_work_.back();
    fwd_work_.pop_back();
    for (u32 t = next_out_[from]; t < stop && !found; t = next_out_[t + 1]) {
      if (prune && g_.tau[t] > g_.tau[b]) break;
      ++scanned_;
      follow_out(t, found, b);
    }
  }
  clear_forward();
  return found;
}

// --- backward half ---------------------------------------------------------
//
// bwd_[s]: latest task of chain s known to reach the current target;
// everything of s up to it reaches the target too. The backward cone belongs to the
// target, not to a query: the sweep asks about one target with every
// frontier member in turn, so the cone is kept and extended between those
// queries. Stretches cut short by one query's lower bound (nothing before a
// in τ can be reached from a) are parked and resumed by a later query with a
// lower bound.

void Reachability::set_target(u32 b) {
  if (b == target_) return;
  for (u32 s : bwd_touched_) bwd_[s] = kNone;
  bwd_touched_.clear();
  bwd_work_.clear();
  parked_.clear();
  target_ = b;
  u32 s = g_.chain(b);
  bwd_touched_.push_back(s);
  bwd_[s] = b;
  bwd_work_.push_back({g_.chain_begin(s), b});
}

void Reachability::reach_backward(u32 task, bool& found) {
  u32 s = g_.chain(task);
  u32 old = bwd_[s];
  u32 lo = g_.chain_begin(s);
  if (old == kNone) {
    bwd_touched_.push_back(s);
  } else if (old >= task) {
    return;
  } else {
    lo = old + 1;
  }
  bwd_[s] = task;
  bwd_work_.push_back({lo, task});
  // Meet the forward half here, or one edge away from the source.
  if ((fwd_[s] != kNone && fwd_[s] <= task) || (source_ != kNone && one_hop(source_, task))) found = true;
}

// Scans one backward stretch [lo, hi] from hi down, following in-edges.
void Reachability::scan_backward(u32 a, bool& found) {
  auto [lo, hi] = bwd_work_.back();
  bwd_work_.pop_back();
  bool prune2 = !tau2_.empty();
  u32 bound = g_.tau[a], bound2 = prune2 ? tau2_[a] : 0;
  for (u32 t = prev_in_[hi]; t != kNone && t >= lo && !found; t = t > 0 ? prev_in_[t - 1] : kNone) {
    if (g_.tau[t] < bound || (prune2 && tau2_[t] < bound2)) {
      parked_.push_back({lo, t});
      return;
    }
    ++scanned_;
    u32 p = g_.partner[t];
    if (p != kNone && trace_.tasks[t].type == TaskType::WAIT) reach_backward(p, found);
    if (g_.has_explicit_edges())
      for (u32 e = g_.in_begin[t]; e < g_.in_begin[t + 1]; ++e) reach_backward(g_.in_from[e], found);
    if (t == 0) break;
  }
}

// --- both ------------------------------------------------------------------

bool Reachability::search_both(u32 a, u32 b) {
  set_target(b);
  source_ = a;
  u32 sa = g_.chain(a);
  if (bwd_[sa] != kNone && bwd_[sa] >= a) return true;
  // Parked stretches may lie above this query's bound.
  for (auto& p : parked_) bwd_work_.push_back(p);
  parked_.clear();
  bool found = false;
  fwd_touched_.push_back(sa);
  fwd_[sa] = a;  // a reaches itself; its chain after it is scanned below
  fwd_work_.push_back({a + 1, g_.chain_end(sa)});
  follow_out(a, found, b);
  // Alternate, so that the cheaper side settles the query; the backward
  // half first, as the target's cone is kept from the previous query.
  while (!found && (!fwd_work_.empty() || !bwd_work_.empty())) {
    if (!bwd_work_.empty()) scan_backward(a, found);
    if (!found && !fwd_work_.empty()) scan_forward(b, found);
  }
  clear_forward();
  source_ = kNone;
  return found;
}

}  // namespace cc
