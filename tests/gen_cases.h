// The schedules the generator and mutation tests sweep: every algorithm and
// operator of the registry over ranks, counts, data types, roots, modes and
// notify modes. A small representative subset normally; everything with
// COLLCHECK_LONG_TESTS=1 (docs/DEVELOPING.md).
#pragma once

#include <string>
#include <vector>

#include "gen/params.h"
#include "model/trace.h"

namespace cc::test {

bool long_tests();

// COLLCHECK_QUICK_TESTS=1 (CI's run under the sanitizers, where everything
// is several times slower): sweeps take every fourth case and property tests
// a quarter of their rounds. The release run of the same suite takes them all.
bool quick_tests();
// n, or a quarter of n (at least 1) with COLLCHECK_QUICK_TESTS=1.
u32 scaled(u32 n);
// Whether case i of a sweep runs: every case, or every fourth with
// COLLCHECK_QUICK_TESTS=1.
bool sampled(u64 i);

struct GenCase {
  std::string algo;
  gen::GenParams p;
  std::string label() const;  // for failure messages
};

// The (algorithm, operator) pairs of the registry, as "algo/Op".
std::vector<std::string> registry_pairs();

// Cases of one "algo/Op" pair.
std::vector<GenCase> gen_cases(const std::string& pair, bool full);

// HCCL's ring AllReduce at 64 ranks (4 Ki elements): more tasks than
// graph/parts.h's kParallelTasks, so that the passes over all tasks
// really start their threads.
Trace ring_over_parallel_threshold();

}  // namespace cc::test
