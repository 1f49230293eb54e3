#include "graph/reach.h"

#include <algorithm>

#include "graph/parts.h"

namespace cc {

Reachability::Reachability(const Trace& trace, const TaskGraph& graph, bool eager_order2)
    : Reachability(trace, graph, ReachOptions{eager_order2, 1}) {}

Reachability::Reachability(const Trace& trace, const TaskGraph& graph, ReachOptions options)
    : trace_(trace), g_(graph), index_(std::make_shared<Index>()), out_(index_->out_marks), in_(index_->in_marks),
      fwd_(graph.chain_count(), kNone), bwd_(graph.chain_count(), kNone) {
  // Made here, read-only from now on (out_ and in_ are bound to it).
  build_index(const_cast<Index&>(*index_), options.workers);
  if (options.eager_order2 && graph.complete) build_order2();
}

void Reachability::build_order2() {
  auto order2 = std::make_shared<const std::vector<u32>>(reverse_priority_order(trace_, g_));
  tau2_ = order2->data();
  tau2_owner_ = std::move(order2);
}

Reachability::Reachability(const Reachability& base, Fork)
    : trace_(base.trace_), g_(base.g_), index_(base.index_), out_(index_->out_marks), in_(index_->in_marks),
      tau2_owner_(base.tau2_owner_), tau2_(base.tau2_), fwd_(base.g_.chain_count(), kNone),
      bwd_(base.g_.chain_count(), kNone) {}

// The index in three passes over runs of whole chains (parts.h), each part
// writing only its own chains' entries and its own row of counts:
//  1. the tasks with out-edges and those with in-edges marked (by runs of
//     words), and the in-edges of each part's tasks counted by the chain
//     they leave;
//  2. the edges, visited by target task (so in order of entered chain and
//     target: chains are runs of consecutive tasks, in chain order),
//     placed by the chain they leave: a counting sort, which
//     leaves each chain's edges ordered by (entered chain, target, source)
//     without comparing any;
//  3. per chain, its groups of one entered chain and their latest sources.
void Reachability::build_index(Index& ix, unsigned workers) const {
  const TaskGraph& g = g_;
  u32 n = g.task_count, nc = g.chain_count();
  unsigned threads = pass_threads(workers, n);
  // Rows of counts cost parts x chains: no more of them than tasks.
  u32 parts = part_count(workers, nc, std::max<u64>(1, n / std::max(1u, nc)));
  std::vector<u32> first_chain(parts + 1, nc);
  first_chain[0] = 0;
  for (u32 p = 1; p < parts; ++p)
    first_chain[p] = static_cast<u32>(
        std::lower_bound(g.chain_first.begin(), g.chain_first.end() - 1, cut(n, parts, p)) - g.chain_first.begin());
  auto tasks_of = [&](u32 p) { return std::pair{g.chain_first[first_chain[p]], g.chain_first[first_chain[p + 1]]}; };
  bool explicit_edges = g.has_explicit_edges();

  // 1. The marks, by runs of whole words (a word may hold tasks of two
  // parts' chains), then the in-edges of each part's tasks counted by the
  // chain they leave.
  ix.out_marks = empty_marks(n);
  ix.in_marks = empty_marks(n);
  auto words = static_cast<u32>(ix.out_marks.words.size());
  u32 word_parts = part_count(workers, words);
  run_parts(threads, word_parts, [&](u32 p) {
    for (u32 w = cut(words, word_parts, p); w < cut(words, word_parts, p + 1); ++w) {
      u64 out = 0, in = 0;
      for (u32 t = w * 64, end = std::min(n, t + 64); t < end; ++t) {
        u64 bit = u64{1} << (t & 63);
        if (g.partner[t] != kNone) (trace_.tasks[t].type == TaskType::RECORD ? out : in) |= bit;
        if (explicit_edges) {
          if (g.in_begin[t + 1] > g.in_begin[t]) in |= bit;
          if (g.out_begin[t + 1] > g.out_begin[t]) out |= bit;
        }
      }
      ix.out_marks.words[w] = out;
      ix.in_marks.words[w] = in;
    }
  });
  std::vector<Job> finish = {[&] { finish_marks(ix.out_marks); }, [&] { finish_marks(ix.in_marks); }};
  run_jobs(threads, finish);
  std::vector<u32> at(u64{parts} * nc, 0);
  run_parts(threads, parts, [&](u32 p) {
    u32* count = at.data() + u64{p} * nc;  // (a trace without chains has no row: no element to name)
    auto [lo, hi] = tasks_of(p);
    for (u32 t = ix.in_marks.next(lo); t < hi; t = ix.in_marks.next(t + 1)) {
      if (g.partner[t] != kNone && trace_.tasks[t].type == TaskType::WAIT) count[g.chain(g.partner[t])]++;
      if (explicit_edges)
        for (u32 e = g.in_begin[t]; e < g.in_begin[t + 1]; ++e) count[g.chain(g.in_from[e])]++;
    }
  });

  // 2. Hops of chain c from hop_first[c], part after part.
  std::vector<u32> hop_first = place_by_key(at, parts, nc);
  ix.hops.resize(hop_first[nc]);
  run_parts(threads, parts, [&](u32 p) {
    u32* pos = at.data() + u64{p} * nc;
    std::vector<u32> from;
    auto [lo, hi] = tasks_of(p);
    for (u32 t = ix.in_marks.next(lo); t < hi; t = ix.in_marks.next(t + 1)) {
      from.clear();
      if (g.partner[t] != kNone && trace_.tasks[t].type == TaskType::WAIT) from.push_back(g.partner[t]);
      if (explicit_edges)
        from.insert(from.end(), g.in_from.begin() + g.in_begin[t], g.in_from.begin() + g.in_begin[t + 1]);
      if (from.size() > 1) std::sort(from.begin(), from.end());
      for (u32 f : from) ix.hops[pos[g.chain(f)]++] = {t, f};  // the source, made the latest in 3
    }
  });
  at = {};

  // 3.
  std::vector<std::vector<Index::Pair>> part_pairs(parts);
  ix.pair_begin.assign(nc + 1, 0);
  run_parts(threads, parts, [&](u32 p) {
    for (u32 c = first_chain[p]; c < first_chain[p + 1]; ++c) {
      for (u32 i = hop_first[c]; i < hop_first[c + 1];) {
        u32 to_chain = g.chain(ix.hops[i].to), j = i, latest = 0;
        for (; j < hop_first[c + 1] && g.chain(ix.hops[j].to) == to_chain; ++j) {
          latest = std::max(latest, ix.hops[j].latest_from);
          ix.hops[j].latest_from = latest;
        }
        part_pairs[p].push_back({to_chain, i, j});
        ix.pair_begin[c + 1]++;
        i = j;
      }
    }
  });
  for (u32 c = 0; c < nc; ++c) ix.pair_begin[c + 1] += ix.pair_begin[c];
  ix.pairs.resize(ix.pair_begin[nc]);
  run_parts(threads, parts, [&](u32 p) {
    std::copy(part_pairs[p].begin(), part_pairs[p].end(), ix.pairs.begin() + ix.pair_begin[first_chain[p]]);
  });
}

// An edge u -> v with a <= u on a's chain and v <= b on b's chain.
bool Reachability::one_hop(u32 a, u32 b) const {
  const Index& ix = *index_;
  u32 ca = g_.chain(a), cb = g_.chain(b);
  const Index::Pair* first = ix.pairs.data() + ix.pair_begin[ca];
  const Index::Pair* last = ix.pairs.data() + ix.pair_begin[ca + 1];
  const Index::Pair* group =
      std::lower_bound(first, last, cb, [](const Index::Pair& x, u32 c) { return x.to_chain < c; });
  if (group == last || group->to_chain != cb) return false;
  auto hf = ix.hops.begin() + group->begin, hl = ix.hops.begin() + group->end;
  auto pos = std::upper_bound(hf, hl, b, [](u32 v, const Index::Hop& h) { return v < h.to; });
  return pos != hf && std::prev(pos)->latest_from >= a;
}

int Reachability::quick(u32 a, u32 b) const {
  if (a == b) return 1;
  if (g_.chain(a) == g_.chain(b)) return a < b;
  if (!g_.executed(a) || !g_.executed(b)) return -1;
  if (g_.tau[a] > g_.tau[b]) return 0;
  if (tau2_ && tau2_[a] > tau2_[b]) return 0;
  return -1;
}

int Reachability::without_search(u32 a, u32 b) const {
  int q = quick(a, b);
  if (q >= 0) return q;
  return one_hop(a, b) ? 1 : -1;
}

bool Reachability::happens_before(u32 a, u32 b) {
  int q = quick(a, b);
  if (q >= 0) return q == 1;
  // τ2 costs about one pass over the graph: build it once searching has.
  if (!tau2_ && g_.complete && scanned_ > g_.task_count) {
    build_order2();
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
  // Without explicit edges in the graph, a task with out-edges is a paired
  // RECORD (build_index): its type need not be read. A search scans tens
  // of millions of stops, and the task's record is a cache miss each.
  if (!g_.has_explicit_edges()) {
    if (out_.has(t)) reach_forward(p, found, b);
    return;
  }
  if (p != kNone && trace_.tasks[t].type == TaskType::RECORD) reach_forward(p, found, b);
  for (u32 e = g_.out_begin[t]; e < g_.out_begin[t + 1]; ++e) reach_forward(g_.out_to[e], found, b);
}

// Scans one forward stretch; every edge goes forward in τ and τ2, so the
// stretch ends at the first task after b in either order.
void Reachability::scan_forward(u32 b, bool& found) {
  auto [from, stop] = fwd_work_.back();
  fwd_work_.pop_back();
  bool prune2 = tau2_ != nullptr;
  u32 limit = g_.tau[b], limit2 = prune2 ? tau2_[b] : kNone;
  for (u32 t = out_.next(from); t < stop && !found; t = out_.next(t + 1)) {
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
    for (u32 t = out_.next(from); t < stop && !found; t = out_.next(t + 1)) {
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
  bool prune2 = tau2_ != nullptr;
  u32 bound = g_.tau[a], bound2 = prune2 ? tau2_[a] : 0;
  for (u32 t = in_.prev(hi); t != kNone && t >= lo && !found; t = t > 0 ? in_.prev(t - 1) : kNone) {
    if (g_.tau[t] < bound || (prune2 && tau2_[t] < bound2)) {
      parked_.push_back({lo, t});
      return;
    }
    ++scanned_;
    u32 p = g_.partner[t];
    // A task with in-edges, without explicit edges, is a paired WAIT (build_index).
    if (!g_.has_explicit_edges()) {
      reach_backward(p, found);
    } else {
      if (p != kNone && trace_.tasks[t].type == TaskType::WAIT) reach_backward(p, found);
      for (u32 e = g_.in_begin[t]; e < g_.in_begin[t + 1]; ++e) reach_backward(g_.in_from[e], found);
    }
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
