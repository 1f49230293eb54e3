// Stage 4 (MemConflict): data tasks that may run at the same time and touch
// the same bytes, one of them writing (302); a graph that is not a DAG (301).
//
// The frontier sweep of memconflict.md: data tasks in the simulated order τ;
// per domain (rank, buffer type) a split interval map whose segments hold the
// frontier W (writes not known ordered before a later write) and R (reads
// since); every new access is compared with the frontier only. Exact given
// an exact happens-before oracle (graph/reach.h).
#pragma once

#include "check/sink.h"
#include "graph/reach.h"

namespace cc {

struct MemConflictOptions {
  bool all_pairs = false;  // enumerate every conflicting pair (--all-pairs)
  // Once a task has this many partners it is reported, and the frontier
  // members not yet compared with it are kept without asking the oracle:
  // a loop of k mutually unordered writes into one slot then costs
  // O(k·cap) ordering queries, not O(k²). Exactness does not depend on it
  // (docs/MEMCONFLICT.md); the tests also run it at 1.
  u32 partner_cap = 64;
};

// One conflicting pair as the sweep found it (for tests and --all-pairs).
struct ConflictPair {
  u32 earlier = 0, later = 0;  // task ids, τ(earlier) < τ(later)
};

struct MemConflictStats {
  u64 accesses = 0, queries = 0, pairs = 0;
};

void check_mem_conflict(const Trace& trace, const TaskGraph& graph, Reachability& reach,
                        const MemConflictOptions& options, FindingSink& out,
                        std::vector<ConflictPair>* pairs = nullptr,
                        MemConflictStats* stats = nullptr);

}  // namespace cc
