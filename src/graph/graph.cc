#include "graph/graph.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace cc {

bool pairs_by_notify(const Trace& trace, const Task& k) {
  if (!is_sync_task(k.type) || (k.flags & kTaskPrematched)) return false;
  return k.peer < trace.op.ranks;  // a peer outside the operator is a 101
}

namespace {

// Interns sync keys by sorting (recordRank, waitRank, notifyId, task).
void intern_keys(const Trace& trace, TaskGraph& g) {
  struct Entry {
    u32 record_rank, wait_rank, notify, task;
    bool operator<(const Entry& o) const {
      if (record_rank != o.record_rank) return record_rank < o.record_rank;
      if (wait_rank != o.wait_rank) return wait_rank < o.wait_rank;
      if (notify != o.notify) return notify < o.notify;
      return task < o.task;
    }
  };
  std::vector<Entry> entries;
  for (u32 i = 0; i < g.task_count; ++i) {
    const Task& k = trace.tasks[i];
    if (!pairs_by_notify(trace, k)) continue;
    bool rec = k.type == TaskType::RECORD;
    entries.push_back({rec ? k.rank : k.peer, rec ? k.peer : k.rank, k.notify, i});
  }
  std::sort(entries.begin(), entries.end());
  g.key_of.assign(g.task_count, kNone);
  g.key_tasks.resize(entries.size());
  g.key_begin.clear();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    bool new_key = i == 0 || e.record_rank != entries[i - 1].record_rank ||
                   e.wait_rank != entries[i - 1].wait_rank || e.notify != entries[i - 1].notify;
    if (new_key) g.key_begin.push_back(static_cast<u32>(i));
    g.key_of[e.task] = static_cast<u32>(g.key_begin.size() - 1);
    g.key_tasks[i] = e.task;
  }
  g.key_count = static_cast<u32>(g.key_begin.size());
  g.key_begin.push_back(static_cast<u32>(entries.size()));
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
  Simulation(const Trace& trace, TaskGraph& g, SimulationHooks* hooks)
      : trace_(trace), g_(g), hooks_(hooks) {}

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
  std::vector<u32> head_;
  std::vector<u32> pending_;  // explicit predecessors and hook holds not yet done
  std::vector<char> queued_, active_;
  std::priority_queue<u32, std::vector<u32>, std::greater<u32>> runnable_;
  std::vector<u32> eager_;  // FIFO of ready eager chains
  std::size_t eager_next_ = 0;
  bool draining_ = false;
  // Per key: FIFO of executed, unconsumed RECORDs (linked through rec_next)
  // and a list of chains blocked on the key (linked through waiter_next).
  std::vector<u32> rec_head_, rec_tail_, rec_next_, waiter_head_, waiter_next_;
  std::vector<std::pair<u32, u32>> consumed_;  // (key, wait) in pairing order
};

void Simulation::run() {
  u32 n = g_.task_count;
  u32 nc = g_.chain_count();
  g_.partner.assign(n, kNone);
  g_.tau.assign(n, kNone);
  g_.order.clear();
  g_.order.reserve(n);
  head_.assign(g_.chain_first.begin(), g_.chain_first.end() - 1);
  pending_ = initial_pending(trace_, g_, hooks_ != nullptr);
  if (hooks_) hooks_->add_holds(pending_);
  rec_head_.assign(g_.key_count, kNone);
  rec_tail_.assign(g_.key_count, kNone);
  rec_next_.assign(n, kNone);
  waiter_head_.assign(g_.key_count, kNone);
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

  g_.complete = g_.order.size() == n;
  for (u32 c = 0; c < nc; ++c)
    if (head_[c] < g_.chain_end(c)) g_.blocked_heads.push_back(head_[c]);
  for (u32 key = 0; key < g_.key_count; ++key)
    for (u32 r = rec_head_[key]; r != kNone; r = rec_next_[r]) g_.unconsumed_records.push_back(r);
  std::sort(g_.unconsumed_records.begin(), g_.unconsumed_records.end());

  // Group consumed pairs by key, keeping pairing order (counting sort).
  g_.pair_begin.assign(g_.key_count + 1, 0);
  for (auto [key, w] : consumed_) g_.pair_begin[key + 1]++;
  for (u32 k = 0; k < g_.key_count; ++k) g_.pair_begin[k + 1] += g_.pair_begin[k];
  g_.pairs.resize(consumed_.size());
  std::vector<u32> at(g_.pair_begin.begin(), g_.pair_begin.end() - 1);
  for (auto [key, w] : consumed_) g_.pairs[at[key]++] = w;
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
      rec_head_[key] = rec_next_[r];
      if (rec_head_[key] == kNone) rec_tail_[key] = kNone;
      g_.partner[t] = r;
      g_.partner[r] = t;
      consumed_.emplace_back(key, t);
    }
    g_.tau[t] = static_cast<u32>(g_.order.size());
    g_.order.push_back(t);
    ++head_[c];
    if (key != kNone && k.type == TaskType::RECORD) {
      if (rec_tail_[key] == kNone) rec_head_[key] = t;
      else rec_next_[rec_tail_[key]] = t;
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
      if (k.type == TaskType::WAIT && g.key_of[t] != kNone) {
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

TaskGraph build_graph(const Trace& trace, SimulationHooks* hooks) {
  TaskGraph g;
  g.task_count = static_cast<u32>(trace.tasks.size());
  g.stream_of.resize(g.task_count);
  for (u32 s = 0; s < trace.streams.size(); ++s) {
    const Stream& st = trace.streams[s];
    std::fill_n(g.stream_of.begin() + st.first_task, st.task_count, s);
  }
  intern_keys(trace, g);
  build_explicit_edges(trace, g);
  build_chains(trace, g);
  Simulation(trace, g, hooks).run();
  if (!hooks && !trace.sim_order.empty()) adopt_recorded_order(trace, g);
  return g;
}

}  // namespace cc
