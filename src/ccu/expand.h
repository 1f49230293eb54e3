// CCU mode (ccu.md): expands every CCU_GRAPH mission of a trace into task
// subgraphs. The missions are co-simulated inside the host graph's pairing
// simulation (graph.h, SimulationHooks); the nodes they make are then
// appended to the trace as unchained tasks with explicit edges, so every
// later stage runs on the expanded graph.
#pragma once

#include <vector>

#include "model/finding.h"
#include "model/trace.h"

namespace cc {

namespace ccu {
struct CcuCarry;
}

struct CcuOptions {
  u64 max_steps = 10'000'000;  // --ccu-max-steps: executed words per mission (§5.1)
  bool drain_at_end = false;   // --ccu-drain-at-end (§5.3)
  bool carry_cke = false;      // --ccu-carry-cke (§4)
  bool strict_ref = false;     // --ccu-strict-ref (§7.4)
  bool loop_merge = false;     // --ccu-loop-merge: BATCH nodes for eligible loops (§9.6)
};

struct CcuExpansionStats {
  u32 missions = 0;
  u64 nodes = 0;
  u64 steps = 0;         // executed words
  u32 merged_loops = 0;  // Loop words emitted as batches
};

// Expands the missions of `trace` (nothing if it has no CCU_GRAPH record)
// and returns the findings of the expansion (101-113, 102 and 103 for CCU
// syncs, CCU-W-* warnings). `carry` (may be null) holds the CKE state of
// the previous operator when options.carry_cke is set, and receives this
// one's.
std::vector<Finding> expand_ccu(Trace& trace, const CcuOptions& options, ccu::CcuCarry* carry = nullptr,
                                CcuExpansionStats* stats = nullptr);

}  // namespace cc
