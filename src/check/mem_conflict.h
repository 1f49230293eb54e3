// Stage 4 (MemConflict): data tasks that may run at the same time and touch
// the same bytes, one of them writing (302); a graph that is not a DAG (301).
//
// The frontier sweep of memconflict.md: data tasks in the simulated order τ;
// per domain (rank, buffer type) a split interval map whose segments hold the
// frontier W (writes not known ordered before a later write) and R (reads
// since); every new access is compared with the frontier only. Exact given
// an exact happens-before oracle (graph/reach.h).
#pragma once

#include <memory>
#include <vector>

#include "check/sink.h"
#include "graph/data_order.h"
#include "graph/reach.h"

namespace cc {

struct MemConflictOptions {
  bool all_pairs = false;  // enumerate every conflicting pair (--all-pairs)
  // Once a task has this many partners (and one in the segment compared)
  // it is reported, and the segment's members not yet compared with it are
  // kept without asking the oracle: a loop of k mutually unordered writes
  // into one slot then costs O(k·cap) ordering queries, not O(k²).
  // Exactness does not depend on it (docs/MEMCONFLICT.md); the tests also
  // run it at 1.
  u32 partner_cap = 64;
  // Unordered SDMA reduces into the same bytes with the same operator and
  // data type are conflicts too (HCCL's checker's rule, --strict-reduce).
  // By default they are not: the DMA engine applies each reduction
  // atomically, and HCCL's mesh and pipeline executors rely on it.
  bool strict_reduce = false;
  // Threads the sweep may use (this thread included): the domains are split
  // into as many shards, each swept on its own thread with its own oracle.
  // The findings, their order and the statistics below (except `scanned`)
  // are the same for every count (docs/MEMCONFLICT.md, "Threads").
  unsigned threads = 1;
};

// One conflicting pair as the sweep found it (for tests and --all-pairs).
struct ConflictPair {
  u32 earlier = 0, later = 0;  // task ids, τ(earlier) < τ(later)
};

struct MemConflictStats {
  u64 accesses = 0, queries = 0, pairs = 0;
  u64 atomic_pairs = 0;  // unordered SDMA reduces of one class met (not conflicts)
  // Tasks scanned by the oracles of the shards other than the first (which
  // uses the caller's oracle): depends on the split.
  u64 scanned = 0;
};

// The atomic class of a task's destination writes: 0 unless the task is a
// reduce applied inline by a DMA engine (link SDMA or RDMA), else 1 + its
// (reduce op, data type). Two writes of one nonzero class never conflict
// with each other.
u16 atomic_reduce_class(const Task& k);

// Stage 4 cut into pieces (shards of its domains) for a caller that runs
// them on its own threads, beside other work: run every piece once, in any
// order, distinct pieces at the same time if wished; then finish(), which
// reports (in the order one sweep would) and adds to `stats`. The findings
// are the same for every number of pieces. The graph must be complete.
class MemConflictSweeps {
 public:
  virtual ~MemConflictSweeps() = default;
  virtual unsigned pieces() const = 0;
  virtual void run(unsigned piece) = 0;
  virtual void finish(MemConflictStats* stats) = 0;
};

// At most `pieces` pieces (fewer when there are fewer domains; at most 64).
// `order` is the graph's memory tasks in τ (graph/data_order.h), read by
// every piece and kept by the caller until finish() returns. `reach` is
// piece 0's oracle; the others get forks of it. The findings go to `out`
// (with one piece, while it runs).
std::unique_ptr<MemConflictSweeps> plan_mem_conflict(const Trace& trace, const TaskGraph& graph,
                                                     const DataOrder& order, Reachability& reach,
                                                     const MemConflictOptions& options, unsigned pieces,
                                                     FindingSink& out, std::vector<ConflictPair>* pairs = nullptr);

// The whole stage on options.threads threads.
void check_mem_conflict(const Trace& trace, const TaskGraph& graph, const DataOrder& order, Reachability& reach,
                        const MemConflictOptions& options, FindingSink& out,
                        std::vector<ConflictPair>* pairs = nullptr,
                        MemConflictStats* stats = nullptr);
// The same, making the list of memory tasks itself.
void check_mem_conflict(const Trace& trace, const TaskGraph& graph, Reachability& reach,
                        const MemConflictOptions& options, FindingSink& out,
                        std::vector<ConflictPair>* pairs = nullptr,
                        MemConflictStats* stats = nullptr);

}  // namespace cc
