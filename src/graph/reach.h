// Happens-before queries on the task graph: is there a path from a to b?
#pragma once

#include <vector>

#include "graph/graph.h"

namespace cc {

// Exact reachability by an earliest-arrival search over streams: entering a
// stream at position p makes every later task of it reachable, so the search
// only follows sync and explicit edges that leave a stream after p. Every
// edge goes forward in the simulated order τ, so nothing with τ > τ(b) can be
// on a path to b and the search never looks past it.
//
// Two cheaper layers come first: tasks of one stream compare positions, and
// a second topological order τ2 (ties broken the other way) proves a pair
// unordered when it disagrees with τ. τ2 costs about one pass over the
// graph, so it is built only once the searches have cost that much.
// Searches jump from one sync-out task to the next (`next_out_`), skipping
// the data tasks between them.
//
// Not thread-safe: it keeps per-stream scratch state between queries.
class Reachability {
 public:
  // `eager_order2` builds τ2 at once (tests use it to cover both paths).
  Reachability(const Trace& trace, const TaskGraph& graph, bool eager_order2 = false);

  // a ≤ b: a == b, or a path from a to b exists.
  bool happens_before(u32 a, u32 b);

  // Number of tasks scanned by all queries so far (for statistics).
  u64 scanned() const { return scanned_; }

 private:
  const Trace& trace_;
  const TaskGraph& g_;
  std::vector<u32> next_out_;  // first task at or after t on its stream with out-edges
  std::vector<u32> tau2_;      // empty until built
  std::vector<u32> reached_;   // per stream: earliest reached task id, or kNone
  std::vector<u32> touched_;
  std::vector<std::pair<u32, u32>> work_;  // (first task to scan, stop)
  u64 scanned_ = 0;
};

}  // namespace cc
