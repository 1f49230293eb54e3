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

// The pairing simulation of checks.md: run the lowest (rank, stream) that can
// advance until it blocks or ends; a WAIT consumes the earliest executed,
// unconsumed RECORD with its key.
void simulate(const Trace& trace, TaskGraph& g) {
  u32 n = g.task_count;
  std::size_t ns = trace.streams.size();
  g.partner.assign(n, kNone);
  g.tau.assign(n, kNone);
  g.order.clear();
  g.order.reserve(n);

  std::vector<u32> head(ns);
  for (std::size_t s = 0; s < ns; ++s) head[s] = trace.streams[s].first_task;
  auto stream_end = [&](std::size_t s) {
    return trace.streams[s].first_task + trace.streams[s].task_count;
  };

  // Pending explicit predecessors per task.
  std::vector<u32> pending;
  if (g.has_explicit_edges()) {
    pending.resize(n);
    for (u32 i = 0; i < n; ++i) pending[i] = g.in_begin[i + 1] - g.in_begin[i];
  }

  // Per key: FIFO of executed, unconsumed RECORDs (linked through rec_next)
  // and a list of streams blocked on the key (linked through waiter_next).
  std::vector<u32> rec_head(g.key_count, kNone), rec_tail(g.key_count, kNone);
  std::vector<u32> rec_next(n, kNone);
  std::vector<u32> waiter_head(g.key_count, kNone), waiter_next(ns, kNone);

  std::priority_queue<u32, std::vector<u32>, std::greater<u32>> runnable;
  std::vector<char> queued(ns, 1);
  for (std::size_t s = 0; s < ns; ++s) runnable.push(static_cast<u32>(s));
  auto wake = [&](u32 s) {
    if (!queued[s]) {
      queued[s] = 1;
      runnable.push(s);
    }
  };

  std::vector<std::pair<u32, u32>> consumed;  // (key, wait) in pairing order
  while (!runnable.empty()) {
    u32 s = runnable.top();
    runnable.pop();
    queued[s] = 0;
    u32 end = stream_end(s);
    while (head[s] < end) {
      u32 t = head[s];
      if (!pending.empty() && pending[t] > 0) break;  // woken when the count drops
      const Task& k = trace.tasks[t];
      u32 key = g.key_of[t];
      if (key != kNone && k.type == TaskType::WAIT) {
        u32 r = rec_head[key];
        if (r == kNone) {
          waiter_next[s] = waiter_head[key];
          waiter_head[key] = s;
          break;
        }
        rec_head[key] = rec_next[r];
        if (rec_head[key] == kNone) rec_tail[key] = kNone;
        g.partner[t] = r;
        g.partner[r] = t;
        consumed.emplace_back(key, t);
      }
      g.tau[t] = static_cast<u32>(g.order.size());
      g.order.push_back(t);
      ++head[s];
      if (key != kNone && k.type == TaskType::RECORD) {
        if (rec_tail[key] == kNone) rec_head[key] = t;
        else rec_next[rec_tail[key]] = t;
        rec_tail[key] = t;
        for (u32 w = waiter_head[key]; w != kNone;) {
          u32 next = waiter_next[w];
          waiter_next[w] = kNone;
          wake(w);
          w = next;
        }
        waiter_head[key] = kNone;
      }
      if (!pending.empty()) {
        for (u32 e = g.out_begin[t]; e < g.out_begin[t + 1]; ++e) {
          u32 v = g.out_to[e];
          if (--pending[v] == 0 && head[g.stream_of[v]] == v) wake(g.stream_of[v]);
        }
      }
    }
  }

  g.complete = g.order.size() == n;
  for (std::size_t s = 0; s < ns; ++s)
    if (head[s] < stream_end(s)) g.blocked_heads.push_back(head[s]);
  for (u32 key = 0; key < g.key_count; ++key)
    for (u32 r = rec_head[key]; r != kNone; r = rec_next[r]) g.unconsumed_records.push_back(r);
  std::sort(g.unconsumed_records.begin(), g.unconsumed_records.end());

  // Group consumed pairs by key, keeping pairing order (counting sort).
  g.pair_begin.assign(g.key_count + 1, 0);
  for (auto [key, w] : consumed) g.pair_begin[key + 1]++;
  for (u32 k = 0; k < g.key_count; ++k) g.pair_begin[k + 1] += g.pair_begin[k];
  g.pairs.resize(consumed.size());
  std::vector<u32> at(g.pair_begin.begin(), g.pair_begin.end() - 1);
  for (auto [key, w] : consumed) g.pairs[at[key]++] = w;
}

}  // namespace

std::vector<u32> reverse_priority_order(const Trace& trace, const TaskGraph& g) {
  u32 n = g.task_count;
  std::size_t ns = trace.streams.size();
  std::vector<u32> pos(n, kNone);
  std::vector<u32> head(ns);
  for (std::size_t s = 0; s < ns; ++s) head[s] = trace.streams[s].first_task;
  std::vector<u32> pending;
  if (g.has_explicit_edges()) {
    pending.resize(n);
    for (u32 i = 0; i < n; ++i) pending[i] = g.in_begin[i + 1] - g.in_begin[i];
  }
  std::priority_queue<u32> runnable;  // highest stream first
  std::vector<char> queued(ns, 1);
  for (std::size_t s = 0; s < ns; ++s) runnable.push(static_cast<u32>(s));
  auto wake = [&](u32 s) {
    if (!queued[s]) {
      queued[s] = 1;
      runnable.push(s);
    }
  };
  u32 next = 0;
  while (!runnable.empty()) {
    u32 s = runnable.top();
    runnable.pop();
    queued[s] = 0;
    u32 end = trace.streams[s].first_task + trace.streams[s].task_count;
    while (head[s] < end) {
      u32 t = head[s];
      if (!pending.empty() && pending[t] > 0) break;
      const Task& k = trace.tasks[t];
      if (k.type == TaskType::WAIT && g.key_of[t] != kNone) {
        u32 r = g.partner[t];
        if (r == kNone || pos[r] == kNone) break;  // woken when r runs
      }
      pos[t] = next++;
      ++head[s];
      if (k.type == TaskType::RECORD && g.partner[t] != kNone) {
        u32 w = g.partner[t];
        if (head[g.stream_of[w]] == w) wake(g.stream_of[w]);
      }
      if (!pending.empty())
        for (u32 e = g.out_begin[t]; e < g.out_begin[t + 1]; ++e) {
          u32 v = g.out_to[e];
          if (--pending[v] == 0 && head[g.stream_of[v]] == v) wake(g.stream_of[v]);
        }
    }
  }
  return pos;
}

TaskGraph build_graph(const Trace& trace) {
  TaskGraph g;
  g.task_count = static_cast<u32>(trace.tasks.size());
  g.stream_of.resize(g.task_count);
  for (u32 s = 0; s < trace.streams.size(); ++s) {
    const Stream& st = trace.streams[s];
    std::fill_n(g.stream_of.begin() + st.first_task, st.task_count, s);
  }
  intern_keys(trace, g);
  build_explicit_edges(trace, g);
  simulate(trace, g);
  return g;
}

}  // namespace cc
