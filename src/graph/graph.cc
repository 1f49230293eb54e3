#include "graph/graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "graph/parts.h"

namespace cc {

bool pairs_by_notify(const Trace& trace, const Task& k) {
  if (!is_sync_task(k.type) || (k.flags & kTaskPrematched)) return false;
  return k.peer() < trace.op.ranks;  // a peer outside the operator is a 101
}

namespace {

// One valid sync task under its key; the keys are numbered in the order
// of (recordRank, waitRank, notifyId), a key's tasks in task-id order.
struct KeyEntry {
  u32 record_rank, wait_rank, notify, task;
  bool operator<(const KeyEntry& o) const {
    if (record_rank != o.record_rank) return record_rank < o.record_rank;
    if (wait_rank != o.wait_rank) return wait_rank < o.wait_rank;
    if (notify != o.notify) return notify < o.notify;
    return task < o.task;
  }
  bool same_key(const KeyEntry& o) const {
    return record_rank == o.record_rank && wait_rank == o.wait_rank && notify == o.notify;
  }
};

KeyEntry key_entry(const Task& k, u32 task) {
  bool rec = k.type == TaskType::RECORD;
  return {rec ? k.rank : k.peer(), rec ? k.peer() : k.rank, k.notify(), task};
}

// Sorts the entries of one bucket, which arrive in task order. A bucket of
// one recording rank is spread over its waiting ranks by counting when they
// are few. What is left to sort is then mostly a few ascending runs, one
// per stream taking part (a stream signals a peer with notify ids in the
// order it uses them): those are merged; anything else is sorted outright.
// Buffers are kept from bucket to bucket.
struct BucketSorter {
  std::vector<KeyEntry> e, spread;
  std::vector<u32> at, runs, merged_runs;

  void sort(bool one_record_rank) {
    if (std::is_sorted(e.begin(), e.end())) return;
    auto [lo, hi] = std::minmax_element(e.begin(), e.end(), [](const KeyEntry& x, const KeyEntry& y) {
      return x.wait_rank < y.wait_rank;
    });
    u32 base = lo->wait_rank;
    u64 span = u64{hi->wait_rank} - base + 1;
    if (!one_record_rank || span > e.size()) {
      sort_runs(0, static_cast<u32>(e.size()));
      return;
    }
    at.assign(span + 1, 0);
    for (const KeyEntry& x : e) at[x.wait_rank - base + 1]++;
    for (u64 w = 0; w < span; ++w) at[w + 1] += at[w];
    spread.resize(e.size());
    for (const KeyEntry& x : e) spread[at[x.wait_rank - base]++] = x;  // stable: task order kept
    e.swap(spread);
    // at[w] is now where the run of waiting rank base+w ends.
    u32 from = 0;
    for (u64 w = 0; w < span; ++w) {
      sort_runs(from, at[w]);
      from = at[w];
    }
  }

  // Sorts e[from, to): merges its ascending runs pairwise when they are
  // few, sorts it when they are not.
  void sort_runs(u32 from, u32 to) {
    runs.assign(1, from);
    for (u32 i = from + 1; i < to; ++i)
      if (e[i] < e[i - 1]) {
        if (runs.size() == 16) {
          std::sort(e.begin() + from, e.begin() + to);
          return;
        }
        runs.push_back(i);
      }
    runs.push_back(to);
    while (runs.size() > 2) {
      std::size_t count = runs.size() - 1;
      merged_runs.assign(1, from);
      for (std::size_t i = 0; i + 2 <= count; i += 2) {
        std::inplace_merge(e.begin() + runs[i], e.begin() + runs[i + 1], e.begin() + runs[i + 2]);
        merged_runs.push_back(runs[i + 2]);
      }
      if (count % 2) merged_runs.push_back(to);
      runs.swap(merged_runs);
    }
  }
};

// Interns sync keys: key_tasks is every valid sync task sorted by
// (recordRank, waitRank, notifyId, task), a key each run of equal
// (recordRank, waitRank, notifyId). Rather than one sort of them all, a
// counting pass spreads the tasks over buckets of recording ranks, in task
// order, and the buckets are sorted on their own (BucketSorter). The
// passes over tasks and the buckets are cut into parts for `workers`
// threads; each part writes only its own tasks' and buckets' entries.
void intern_keys(const Trace& trace, TaskGraph& g, unsigned workers) {
  u32 n = g.task_count;
  unsigned threads = pass_threads(workers, n);
  // 1. Each valid sync task's recording rank, parked in key_of (sized by
  // the caller; kNone for the other tasks). A rank of 2^32-1 is parked as
  // 2^32-2: the buckets then hold several ranks each (below), and those
  // two share one.
  u32 chunks = part_count(workers, n);
  std::vector<u32> chunk_max(chunks, 0);
  std::vector<u64> chunk_entries(chunks, 0);
  run_parts(threads, chunks, [&](u32 c) {
    u32 top = 0;
    u64 m = 0;
    for (u32 i = cut(n, chunks, c); i < cut(n, chunks, c + 1); ++i) {
      const Task& k = trace.tasks[i];
      u32 rr = kNone;
      if (pairs_by_notify(trace, k)) {
        rr = std::min(k.type == TaskType::RECORD ? k.rank : k.peer(), kNone - 1);
        top = std::max(top, rr);
        ++m;
      }
      g.key_of[i] = rr;
    }
    chunk_max[c] = top;
    chunk_entries[c] = m;
  });
  u64 entries = 0;
  u32 top = 0;
  for (u32 c = 0; c < chunks; ++c) entries += chunk_entries[c], top = std::max(top, chunk_max[c]);
  g.key_tasks.resize(entries);
  g.key_begin.clear();
  if (entries == 0) {
    g.key_count = 0;
    g.key_begin.push_back(0);
    return;
  }

  // 2. Buckets: rank >> shift, no more of them than entries (nor 2^16), so
  // that a header naming many ranks costs nothing. Counted per part and
  // bucket, then placed bucket by bucket, part after part: task order.
  u64 limit = std::min<u64>(entries, u64{1} << 16);
  u32 shift = 0;
  while ((u64{top} >> shift) >= limit) ++shift;
  u32 buckets = (top >> shift) + 1;
  u32 parts = part_count(workers, n, std::max<u64>(1, n / buckets));
  std::vector<u32> at(u64{parts} * buckets, 0);
  run_parts(threads, parts, [&](u32 c) {
    u32* count = &at[u64{c} * buckets];
    for (u32 i = cut(n, parts, c); i < cut(n, parts, c + 1); ++i)
      if (g.key_of[i] != kNone) count[g.key_of[i] >> shift]++;
  });
  std::vector<u32> bucket_begin = place_by_key(at, parts, buckets);
  run_parts(threads, parts, [&](u32 c) {
    u32* pos = &at[u64{c} * buckets];
    for (u32 i = cut(n, parts, c); i < cut(n, parts, c + 1); ++i)
      if (g.key_of[i] != kNone) g.key_tasks[pos[g.key_of[i] >> shift]++] = i;
  });
  at = {};

  // 3. Each bucket sorted, its keys numbered from 0 (parked in key_of);
  // parts are runs of buckets of about equal entries.
  u32 groups = part_count(workers, buckets);
  std::vector<u32> group_first(groups + 1, buckets);
  for (u32 p = 0; p < groups; ++p)
    group_first[p] = static_cast<u32>(
        std::lower_bound(bucket_begin.begin(), bucket_begin.end() - 1, cut(entries, groups, p)) - bucket_begin.begin());
  std::vector<u32> bucket_keys(buckets + 1, 0);
  run_parts(threads, groups, [&](u32 p) {
    BucketSorter s;
    for (u32 b = group_first[p]; b < group_first[p + 1]; ++b) {
      u32 lo = bucket_begin[b], hi = bucket_begin[b + 1];
      if (lo == hi) continue;
      s.e.resize(hi - lo);
      for (u32 i = lo; i < hi; ++i) s.e[i - lo] = key_entry(trace.tasks[g.key_tasks[i]], g.key_tasks[i]);
      s.sort(shift == 0);
      u32 local = 0;
      for (u32 j = 0; j < hi - lo; ++j) {
        if (j > 0 && !s.e[j].same_key(s.e[j - 1])) ++local;
        g.key_tasks[lo + j] = s.e[j].task;
        g.key_of[s.e[j].task] = local;
      }
      bucket_keys[b + 1] = local + 1;
    }
  });

  // 4. Keys numbered across buckets.
  for (u32 b = 0; b < buckets; ++b) bucket_keys[b + 1] += bucket_keys[b];
  g.key_count = bucket_keys[buckets];
  g.key_begin.resize(g.key_count + 1);
  g.key_begin[g.key_count] = static_cast<u32>(entries);
  run_parts(threads, groups, [&](u32 p) {
    for (u32 b = group_first[p]; b < group_first[p + 1]; ++b) {
      u32 base = bucket_keys[b], prev = kNone;
      for (u32 i = bucket_begin[b]; i < bucket_begin[b + 1]; ++i) {
        u32 t = g.key_tasks[i];
        u32 local = g.key_of[t];
        if (local != prev) g.key_begin[base + local] = i;
        prev = local;
        g.key_of[t] = base + local;
      }
    }
  });
}

void build_explicit_edges(const Trace& trace, TaskGraph& g) {
  if (trace.extra_edges.empty()) return;
  u32 n = g.task_count;
  g.out_begin.assign(n + 1, 0);
  g.in_begin.assign(n + 1, 0);
  for (auto [a, b] : trace.extra_edges) {
    g.out_begin[a + 1]++;
    g.in_begin[b + 1]++;
  }
  for (u32 i = 0; i < n; ++i) {
    g.out_begin[i + 1] += g.out_begin[i];
    g.in_begin[i + 1] += g.in_begin[i];
  }
  g.out_to.resize(trace.extra_edges.size());
  g.in_from.resize(trace.extra_edges.size());
  std::vector<u32> po(g.out_begin.begin(), g.out_begin.end() - 1);
  std::vector<u32> pi(g.in_begin.begin(), g.in_begin.end() - 1);
  for (auto [a, b] : trace.extra_edges) {
    g.out_to[po[a]++] = b;
    g.in_from[pi[b]++] = a;
  }
}

void build_chains(const Trace& trace, TaskGraph& g) {
  g.chain_first.clear();
  g.chain_of.clear();
  bool unchained = false;
  for (const Stream& st : trace.streams) {
    g.chain_first.push_back(st.first_task);
    for (u32 t = st.first_task + 1; t < st.first_task + st.task_count; ++t)
      if (trace.tasks[t].flags & kTaskUnchained) {
        g.chain_first.push_back(t);
        unchained = true;
      }
  }
  g.chain_first.push_back(g.task_count);
  if (!unchained) return;  // chains are streams
  g.chain_of.resize(g.task_count);
  for (u32 c = 0; c + 1 < g.chain_first.size(); ++c)
    std::fill(g.chain_of.begin() + g.chain_first[c], g.chain_of.begin() + g.chain_first[c + 1], c);
}

bool has_blocked_tasks(const Trace& trace) {
  for (const Task& k : trace.tasks)
    if (k.flags & kTaskBlocked) return true;
  return false;
}

// Predecessors each task waits for: explicit edges, plus one that never
// comes for a blocked task. Empty when there are neither.
std::vector<u32> initial_pending(const Trace& trace, const TaskGraph& g, bool always) {
  std::vector<u32> pending;
  bool blocked = has_blocked_tasks(trace);
  if (!g.has_explicit_edges() && !blocked && !always) return pending;
  pending.assign(g.task_count, 0);
  for (u32 i = 0; i < g.task_count; ++i)
    pending[i] = (g.has_explicit_edges() ? g.in_begin[i + 1] - g.in_begin[i] : 0) +
                 ((trace.tasks[i].flags & kTaskBlocked) != 0);
  return pending;
}

// The pairing simulation of checks.md: run the lowest (rank, stream) chain
// that can advance until it blocks or ends; a WAIT consumes the earliest
// executed, unconsumed RECORD with its key. Chains that begin with an
// unchained task are "eager": they run as soon as they are ready, right
// after the step that readied them, so they never change the order in
// which the streams run.
class Simulation final : public SimulationControl {
 public:
  Simulation(const Trace& trace, TaskGraph& g, SimulationHooks* hooks, unsigned workers)
      : trace_(trace), g_(g), hooks_(hooks), workers_(workers) {}

  void run();
  void release(u32 task) override {
    if (--pending_[task] == 0) ready(task);
  }

 private:
  bool eager(u32 c) const { return trace_.tasks[g_.chain_begin(c)].flags & kTaskUnchained; }
  void wake(u32 c) {
    if (queued_[c] || active_[c]) return;
    queued_[c] = 1;
    if (eager(c)) eager_.push_back(c);
    else runnable_.push(c);
  }
  // `task` waits for nothing more: its chain goes on if it stopped there.
  void ready(u32 task) {
    u32 c = g_.chain(task);
    if (head_[c] == task) wake(c);
  }
  void run_chain(u32 c);
  void executed(u32 t);
  void drain_eager();

  const Trace& trace_;
  TaskGraph& g_;
  SimulationHooks* hooks_;
  unsigned workers_;
  u32 executed_ = 0;  // tasks in g_.order so far
  std::vector<u32> head_;
  std::vector<u32> pending_;  // explicit predecessors and hook holds not yet done
  std::vector<char> queued_, active_;
  std::priority_queue<u32, std::vector<u32>, std::greater<u32>> runnable_;
  std::vector<u32> eager_;  // FIFO of ready eager chains
  std::size_t eager_next_ = 0;
  bool draining_ = false;
  // Per key: FIFO of executed, unconsumed RECORDs and a list of chains
  // blocked on the key (linked through waiter_next). A RECORD in its FIFO
  // has no partner yet: its `partner` entry links it to the next RECORD of
  // the FIFO meanwhile (kNone: the last), and becomes its WAIT when one
  // consumes it. A link table of its own would be 4 bytes per task (40 MB
  // at 10^7 tasks) alive at the graph's peak.
  std::vector<u32> rec_head_, rec_tail_, waiter_head_, waiter_next_;
  void group_pairs_by_key();
};

void Simulation::run() {
  u32 n = g_.task_count;
  u32 nc = g_.chain_count();
  // The tables are large and fresh (their first touch is what costs):
  // they are filled side by side before the simulation (one thread) runs.
  auto fill = [](std::vector<u32>& v, std::size_t size) { v.assign(size, kNone); };
  std::vector<Job> tables = {
      [&] { fill(g_.partner, n); },
      [&] { fill(g_.tau, n); },
      [&] { fill(g_.order, n); },  // cut to the executed tasks at the end
      [&] {
        for (std::vector<u32>* v : {&rec_head_, &rec_tail_, &waiter_head_}) fill(*v, g_.key_count);
      },
      [&] { pending_ = initial_pending(trace_, g_, hooks_ != nullptr); },
  };
  run_jobs(pass_threads(workers_, n), tables);
  head_.assign(g_.chain_first.begin(), g_.chain_first.end() - 1);
  if (hooks_) hooks_->add_holds(pending_);
  waiter_next_.assign(nc, kNone);
  queued_.assign(nc, 0);
  active_.assign(nc, 0);
  for (u32 c = 0; c < nc; ++c)
    if (!eager(c) || pending_.empty() || pending_[g_.chain_begin(c)] == 0) wake(c);
  if (hooks_) hooks_->started(*this);
  drain_eager();
  while (!runnable_.empty()) {
    u32 c = runnable_.top();
    runnable_.pop();
    queued_[c] = 0;
    run_chain(c);
  }

  g_.order.resize(executed_);
  g_.complete = executed_ == n;
  for (u32 c = 0; c < nc; ++c)
    if (head_[c] < g_.chain_end(c)) g_.blocked_heads.push_back(head_[c]);
  for (u32 key = 0; key < g_.key_count; ++key) {
    for (u32 r = rec_head_[key]; r != kNone;) {
      g_.unconsumed_records.push_back(r);
      r = std::exchange(g_.partner[r], kNone);  // the FIFO's link, not a partner
    }
  }
  std::sort(g_.unconsumed_records.begin(), g_.unconsumed_records.end());
  group_pairs_by_key();
}

// Consumed pairs grouped by key in pairing order. A key's RECORDs are
// consumed first in, first out, by its WAITs in the order they run: its
// pairs in pairing order are its paired WAITs in τ. A counting sort by key
// over the tasks, then each key's few WAITs by τ.
void Simulation::group_pairs_by_key() {
  u32 n = g_.task_count;
  auto paired_wait = [&](u32 t) {
    return g_.partner[t] != kNone && g_.key_of[t] != kNone && trace_.tasks[t].type == TaskType::WAIT;
  };
  g_.pair_begin.assign(g_.key_count + 1, 0);
  for (u32 t = 0; t < n; ++t)
    if (paired_wait(t)) g_.pair_begin[g_.key_of[t] + 1]++;
  for (u32 k = 0; k < g_.key_count; ++k) g_.pair_begin[k + 1] += g_.pair_begin[k];
  g_.pairs.resize(g_.pair_begin[g_.key_count]);
  // pair_begin[k] serves as key k's cursor, ending at key k+1's start...
  for (u32 t = 0; t < n; ++t)
    if (paired_wait(t)) g_.pairs[g_.pair_begin[g_.key_of[t]]++] = t;
  // ...so the starts are one place up.
  std::copy_backward(g_.pair_begin.begin(), g_.pair_begin.end() - 1, g_.pair_begin.end());
  g_.pair_begin[0] = 0;
  for (u32 k = 0; k < g_.key_count; ++k) {
    auto first = g_.pairs.begin() + g_.pair_begin[k], last = g_.pairs.begin() + g_.pair_begin[k + 1];
    if (last - first > 1) std::sort(first, last, [&](u32 a, u32 b) { return g_.tau[a] < g_.tau[b]; });
  }
}

void Simulation::run_chain(u32 c) {
  active_[c] = 1;
  u32 end = g_.chain_end(c);
  while (head_[c] < end) {
    u32 t = head_[c];
    if (!pending_.empty() && pending_[t] > 0) break;  // woken when the count drops
    const Task& k = trace_.tasks[t];
    u32 key = g_.key_of[t];
    if (key != kNone && k.type == TaskType::WAIT) {
      u32 r = rec_head_[key];
      if (r == kNone) {
        waiter_next_[c] = waiter_head_[key];
        waiter_head_[key] = c;
        break;
      }
      rec_head_[key] = g_.partner[r];  // the FIFO's link (see above)
      if (rec_head_[key] == kNone) rec_tail_[key] = kNone;
      g_.partner[t] = r;
      g_.partner[r] = t;
    }
    g_.tau[t] = executed_;
    g_.order[executed_++] = t;
    ++head_[c];
    if (key != kNone && k.type == TaskType::RECORD) {
      if (rec_tail_[key] == kNone) rec_head_[key] = t;
      else g_.partner[rec_tail_[key]] = t;  // the FIFO's link
      rec_tail_[key] = t;
      for (u32 w = waiter_head_[key]; w != kNone;) {
        u32 next = waiter_next_[w];
        waiter_next_[w] = kNone;
        wake(w);
        w = next;
      }
      waiter_head_[key] = kNone;
    }
    executed(t);
  }
  active_[c] = 0;
}

void Simulation::executed(u32 t) {
  if (g_.has_explicit_edges())
    for (u32 e = g_.out_begin[t]; e < g_.out_begin[t + 1]; ++e) release(g_.out_to[e]);
  if (hooks_) hooks_->executed(t, *this);
  drain_eager();
}

void Simulation::drain_eager() {
  if (draining_) return;  // the outer drain runs what this step readied
  draining_ = true;
  while (eager_next_ < eager_.size()) {
    u32 c = eager_[eager_next_++];
    queued_[c] = 0;
    run_chain(c);
  }
  eager_.clear();
  eager_next_ = 0;
  draining_ = false;
}

// An expansion's co-simulation order (Trace::sim_order) replaces the
// simulated order when it covers exactly the executed tasks and respects
// every edge of the final graph; otherwise the graph keeps its own.
void adopt_recorded_order(const Trace& trace, TaskGraph& g) {
  const std::vector<u32>& rec = trace.sim_order;
  if (rec.size() != g.order.size()) return;
  std::vector<u32> pos(g.task_count, kNone);
  for (u32 i = 0; i < rec.size(); ++i) {
    u32 v = rec[i];
    if (v >= g.task_count || g.tau[v] == kNone || pos[v] != kNone) return;
    pos[v] = i;
  }
  for (u32 v : rec) {
    if (g.has_stream_pred(v) && pos[v - 1] > pos[v]) return;
    if (trace.tasks[v].type == TaskType::WAIT && g.partner[v] != kNone && pos[g.partner[v]] > pos[v]) return;
    if (g.has_explicit_edges())
      for (u32 e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e)
        if (pos[g.in_from[e]] > pos[v]) return;
  }
  g.order = rec;
  g.tau = std::move(pos);
}

}  // namespace

std::vector<u32> reverse_priority_order(const Trace& trace, const TaskGraph& g) {
  u32 n = g.task_count;
  u32 nc = g.chain_count();
  std::vector<u32> pos(n, kNone);
  std::vector<u32> head(g.chain_first.begin(), g.chain_first.end() - 1);
  std::vector<u32> pending = initial_pending(trace, g, false);
  // Highest chain first. An order only has to respect the edges, so the
  // chains of unchained tasks simply take their turn like any other.
  std::priority_queue<u32> runnable;
  std::vector<char> queued(nc, 1);
  for (u32 c = 0; c < nc; ++c) runnable.push(c);
  auto wake = [&](u32 c) {
    if (!queued[c]) {
      queued[c] = 1;
      runnable.push(c);
    }
  };
  u32 next = 0;
  while (!runnable.empty()) {
    u32 c = runnable.top();
    runnable.pop();
    queued[c] = 0;
    u32 end = g.chain_end(c);
    while (head[c] < end) {
      u32 t = head[c];
      if (!pending.empty() && pending[t] > 0) break;
      const Task& k = trace.tasks[t];
      // A WAIT that pairing keyed waits for its RECORD. Once the key tables
      // are released (a complete graph only) those are the paired WAITs: in
      // a complete graph every keyed WAIT ran, so consumed a RECORD.
      bool keyed = g.key_of.empty() ? g.partner[t] != kNone : g.key_of[t] != kNone;
      if (k.type == TaskType::WAIT && keyed) {
        u32 r = g.partner[t];
        if (r == kNone || pos[r] == kNone) break;  // woken when r runs
      }
      pos[t] = next++;
      ++head[c];
      if (k.type == TaskType::RECORD && g.partner[t] != kNone) {
        u32 w = g.partner[t];
        if (head[g.chain(w)] == w) wake(g.chain(w));
      }
      if (g.has_explicit_edges())
        for (u32 e = g.out_begin[t]; e < g.out_begin[t + 1]; ++e) {
          u32 v = g.out_to[e];
          if (--pending[v] == 0 && head[g.chain(v)] == v) wake(g.chain(v));
        }
    }
  }
  return pos;
}

namespace {

// The tables of TaskGraph::stream_of. The readers leave the streams in task
// order, each a run of consecutive tasks (finalize_trace).
void index_streams(const Trace& trace, TaskGraph& g) {
  u32 n = g.task_count;
  auto streams = static_cast<u32>(trace.streams.size());
  g.stream_first.resize(streams + 1);
  for (u32 s = 0; s < streams; ++s) g.stream_first[s] = trace.streams[s].first_task;
  g.stream_first[streams] = n;
  u32 steps = n / TaskGraph::kStreamStep + 1;
  g.stream_at_step.resize(steps + 1);
  u32 s = 0;
  for (u32 i = 0; i < steps; ++i) {
    u32 t = i * TaskGraph::kStreamStep;
    while (s + 1 < streams && g.stream_first[s + 1] <= t) ++s;
    g.stream_at_step[i] = s;
  }
  g.stream_at_step[steps] = streams == 0 ? 0 : streams - 1;
}

}  // namespace

TaskGraph build_graph(const Trace& trace, SimulationHooks* hooks, unsigned workers) {
  TaskGraph g;
  u32 n = g.task_count = static_cast<u32>(trace.tasks.size());
  index_streams(trace, g);
  g.key_of.resize(n);
  intern_keys(trace, g, workers);
  build_explicit_edges(trace, g);
  build_chains(trace, g);
  Simulation(trace, g, hooks, workers).run();
  if (!hooks && !trace.sim_order.empty()) adopt_recorded_order(trace, g);
  return g;
}

void restore_order(TaskGraph& graph, u32 executed) {
  graph.order.assign(executed, kNone);
  for (u32 t = 0; t < graph.task_count; ++t)
    if (graph.tau[t] != kNone) graph.order[graph.tau[t]] = t;
}

void release_sync_keys(TaskGraph& graph) {
  if (!graph.complete) return;  // reverse_priority_order still needs key_of
  std::vector<u32>().swap(graph.key_of);
  std::vector<u32>().swap(graph.key_begin);
  std::vector<u32>().swap(graph.key_tasks);
  std::vector<u32>().swap(graph.pair_begin);
  std::vector<u32>().swap(graph.pairs);
}

}  // namespace cc
