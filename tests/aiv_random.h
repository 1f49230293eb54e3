// Random AIV launches for the property tests and the fuzz seeds: 1-4 ranks,
// one or two launches per rank, 1-3 blocks each, every pipe with a random
// program of copies and atomic reduces (random slices of UB, CCL, INPUT,
// OUTPUT, a few bytes past the ends now and then), pipe events, one-pipe and
// PIPE_ALL barriers, SyncAll rounds and SendFlag/RecvFlag on a handful of
// shared cells. Traces are format version 2, not expanded.
#pragma once

#include <random>

#include "model/trace.h"

namespace cc::test {

struct AivRandomShape {
  u32 max_ranks = 4;
  u32 max_blocks = 3;
  u32 max_steps = 14;  // program steps per block and launch
  u32 cells = 3;       // flag cells per rank
  bool two_launches = true;
};

Trace random_aiv_trace(std::mt19937_64& rng, const AivRandomShape& shape = {});

}  // namespace cc::test
