// Random data-flow schedules for every operator, for the semantic stage's
// differential and property tests. A schedule is built correct — every
// required OUTPUT range gets its data directly or through CCL staging, every
// reduced range through a random chain or tree of reduces — and its tasks are
// issued in a random order that keeps the data flow valid (random
// interleaving of the per-range chains, random batching of independent
// tasks, random issuing ranks). `mutate_flow` then breaks it the way real
// schedules go wrong. The trace orders all tasks totally (RECORD/WAIT between
// consecutive tasks of different ranks), so its simulated order is the
// schedule's order and stages 2-4 stay silent.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "model/trace.h"

namespace cc::test {

inline constexpr BufId kCcl = 2;

struct FlowTask {
  bool reduce = false;
  ReduceOp op = ReduceOp::SUM;
  u32 issuer = 0;
  std::vector<std::pair<std::vector<Slice>, Slice>> groups;  // sources -> destination
};

struct FlowCase {
  Op op;
  u64 ccl = 4096;
  std::vector<FlowTask> tasks;
  std::string what;  // mutation applied ("" = correct)
};

// A random operator of `type` (ranks 1..max_ranks unless `ranks` is given)
// and a correct schedule for it.
FlowCase random_flow(std::mt19937_64& rng, OpType type, u32 ranks = 0, u32 max_ranks = 4);

// Applies one random fault (`kind` < 0: any kind) keeping every slice valid
// (no 201/202); false if the drawn fault has no valid place.
bool mutate_flow(std::mt19937_64& rng, FlowCase& c, int kind = -1);
inline constexpr int kFlowFaultKinds = 10;
// Shifts one copy source by one element (the property test's corruption).
bool shift_one_source(std::mt19937_64& rng, FlowCase& c);

Trace flow_trace(const FlowCase& c);

}  // namespace cc::test
