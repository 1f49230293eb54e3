#include "graph/neighbourhood.h"

namespace cc {

Neighbourhood neighbourhood(const Trace& t, const TaskGraph& g, const std::vector<u32>& seeds,
                            u32 max_radius, u64 max_tasks) {
  Neighbourhood n;
  n.keep.assign(t.tasks.size(), 0);
  std::vector<u32> level;
  for (u32 s : seeds)
    if (s < t.tasks.size() && !n.keep[s]) {
      n.keep[s] = 1;
      level.push_back(s);
    }
  n.count = level.size();
  std::vector<u32> next;
  auto visit = [&](u32 v) {
    if (v < n.keep.size() && !n.keep[v]) {
      n.keep[v] = 1;
      next.push_back(v);
    }
  };
  while (!level.empty() && n.radius < max_radius) {
    next.clear();
    for (u32 v : level) {
      if (g.has_stream_pred(v)) visit(v - 1);
      if (u32 next = g.stream_next(v); next != kNone) visit(next);
      if (g.partner[v] != kNone) visit(g.partner[v]);
      if (g.has_explicit_edges()) {
        for (u32 e = g.out_begin[v]; e < g.out_begin[v + 1]; ++e) visit(g.out_to[e]);
        for (u32 e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) visit(g.in_from[e]);
      }
    }
    if (n.count + next.size() > max_tasks) {
      for (u32 v : next) n.keep[v] = 0;  // this level does not fit: undo it
      break;
    }
    if (next.empty()) {
      level.clear();
      break;
    }
    n.count += next.size();
    ++n.radius;
    level.swap(next);
  }
  n.closed = level.empty();
  return n;
}

}  // namespace cc
