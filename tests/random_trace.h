// Random small traces for differential tests: several ranks and streams,
// local and cross-rank RECORD/WAIT (fresh or reused notify ids), data tasks
// with random overlapping slices in a few buffers.
#pragma once

#include <random>

#include "model/trace.h"

namespace cc::test {

struct RandomTraceShape {
  u32 max_ranks = 4;
  u32 max_streams = 3;
  u32 max_tasks = 14;      // per stream
  u32 notify_ids = 4;      // small: ids are reused, so pairing is FIFO per key
  u64 buffer_bytes = 64;
  double sync_share = 0.45;
};

// Built as one random global interleaving in which every WAIT comes after
// its RECORD, so most traces execute completely.
Trace random_trace(std::mt19937_64& rng, const RandomTraceShape& shape = {});

}  // namespace cc::test
