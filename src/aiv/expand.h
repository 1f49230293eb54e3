// AIV mode (aiv.md): expands every AIV_GRAPH launch of a trace into a task
// subgraph — START/END(AIV_SUB_GRAPH), one chain per block × pipe, copies
// and reduces as TRANS_MEM/REDUCE, pipe events, barriers, SyncAll rounds
// and flag operations — co-simulated with the host streams inside the one
// pairing simulation (graph.h, SimulationHooks), then appended to the trace
// as tasks with explicit edges, so that every later stage checks them.
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/result.h"
#include "model/trace.h"

namespace cc {

struct AivOptions {
  // Blocked heads listed in full in the one 102 of a deadlock (the rest are
  // counted; every head is among the finding's tasks).
  u32 max_blocked_lines = 64;
  // Tests only: 0 runs the lanes in the unit order of aiv.md §4.4; any other
  // value gives them a random priority drawn from it, to show that a
  // matching stage 3 accepts does not depend on the order.
  u64 order_seed = 0;
};

struct AivExpansionStats {
  u32 launches = 0;        // AIV_GRAPH records
  u32 expanded = 0;        // of which expanded from a usable snapshot
  u64 nodes = 0;           // nodes made (boundary and merged included)
  u64 sync_edges = 0;      // pipe-event and flag edges matched
  u32 blocked = 0;         // heads the co-simulation ended at (102)
  std::vector<std::pair<std::string, u64>> by_kind;  // nodes per kind
};

struct AivExpansion {
  std::vector<Finding> findings;  // 102-107, 111, AIV-W-*
  AivExpansionStats stats;
};

// Expands the launches of `trace` (nothing if it has no AIV data) and
// returns the findings of the expansion. An Error only when the trace
// cannot hold the nodes (more than 2^32 tasks).
Result<AivExpansion> expand_aiv(Trace& trace, const AivOptions& options = {});

// The "-v" line of an expansion.
std::string aiv_stats_line(const Trace& trace, const AivExpansionStats& stats);

}  // namespace cc
