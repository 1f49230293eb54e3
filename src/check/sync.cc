#include "check/sync.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/describe.h"

namespace cc {

namespace {

// Successors of a task: next on its chain, its released WAIT, explicit edges.
template <typename F>
void for_each_successor(const Trace& t, const TaskGraph& g, u32 v, F&& f) {
  if (u32 next = g.stream_next(v); next != kNone) f(next);
  u32 p = g.partner[v];
  if (p != kNone && t.tasks[v].type == TaskType::RECORD) f(p);
  if (g.has_explicit_edges())
    for (u32 e = g.out_begin[v]; e < g.out_begin[v + 1]; ++e) f(g.out_to[e]);
}

}  // namespace

bool find_cycle(const Trace& t, const TaskGraph& g, std::vector<u32>& cycle) {
  // Iterative three-colour DFS; only needed when explicit edges exist, since
  // the simulation alone only ever pairs tasks in a topological order.
  u32 n = g.task_count;
  std::vector<u8> colour(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<u32> parent(n, kNone);
  std::vector<std::pair<u32, std::vector<u32>>> stack;
  for (u32 root = 0; root < n; ++root) {
    if (colour[root]) continue;
    stack.push_back({root, {}});
    colour[root] = 1;
    for_each_successor(t, g, root, [&](u32 w) { stack.back().second.push_back(w); });
    while (!stack.empty()) {
      auto& [v, succ] = stack.back();
      if (succ.empty()) {
        colour[v] = 2;
        stack.pop_back();
        continue;
      }
      u32 w = succ.back();
      succ.pop_back();
      if (colour[w] == 1) {
        cycle.clear();
        for (u32 x = v; x != w && x != kNone; x = parent[x]) cycle.push_back(x);
        cycle.push_back(w);
        std::reverse(cycle.begin(), cycle.end());
        return true;
      }
      if (colour[w] == 2) continue;
      colour[w] = 1;
      parent[w] = v;
      std::vector<u32> next;
      for_each_successor(t, g, w, [&](u32 x) { next.push_back(x); });
      stack.push_back({w, std::move(next)});
    }
  }
  return false;
}

void check_sync(const Trace& t, const TaskGraph& g, Reachability& reach, FindingSink& out) {
  std::vector<u32> cycle;
  if (!g.complete && g.has_explicit_edges() && find_cycle(t, g, cycle)) {
    Finding f = make_finding(601, StageTag::SyncCheck,
                             fmt::format("The task graph has a cycle of {} tasks.", cycle.size()));
    std::string path;
    for (u32 v : cycle) path += task_position(t, v) + " \u2192 ";
    path += task_position(t, cycle.front());
    f.details.push_back("Cycle : " + path);
    f.tasks = cycle;
    out.add(std::move(f));
  }
  for (u32 key = 0; key < g.key_count; ++key) {
    for (u32 i = g.pair_begin[key] + 1; i < g.pair_begin[key + 1]; ++i) {
      u32 w1 = g.pairs[i - 1], w2 = g.pairs[i];
      u32 r1 = g.partner[w1], r2 = g.partner[w2];
      if (reach.happens_before(w1, r2)) continue;
      if (!out.wants(602)) {
        out.count(602, Severity::Error);
        continue;
      }
      Finding f = make_finding(
          602, StageTag::SyncCheck,
          fmt::format("Two uses of notify {}\u2192{} #{} are not serialised: the pairing depends on timing.",
                      record_rank(t.tasks[r1]), wait_rank(t.tasks[r1]), t.tasks[r1].notify));
      f.details.push_back("First pair  : " + task_line(t, r1));
      f.details.push_back("              " + task_line(t, w1));
      f.details.push_back("Second pair : " + task_line(t, r2));
      f.details.push_back("              " + task_line(t, w2));
      f.details.push_back(fmt::format(
          "Missing order: {} does not happen before {}; the second RECORD may fire before the first WAIT has consumed the first signal.",
          task_position(t, w1), task_position(t, r2)));
      f.tasks = {r1, w1, r2, w2};
      out.add(std::move(f));
    }
  }
}

}  // namespace cc
