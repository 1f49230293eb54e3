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
  // CCU-style nodes (ccu.md §5.4): this share of the steps adds an
  // unchained node to a per-rank stream of such nodes, with 1-2 explicit
  // predecessors among the tasks made so far (data tasks and prematched
  // RECORD/WAITs, now and then a blocked one); `explicit_share` of the host
  // tasks get an explicit predecessor among the unchained nodes.
  double unchained_share = 0;
  double explicit_share = 0;
  double blocked_share = 0.02;  // of the unchained nodes
};

// The shape of graphs the CCU expansion makes.
inline RandomTraceShape ccu_style_shape() {
  RandomTraceShape s;
  s.max_tasks = 8;
  s.buffer_bytes = 128;
  s.unchained_share = 0.3;
  s.explicit_share = 0.2;
  s.blocked_share = 0.01;
  return s;
}

// Built as one random global interleaving in which every WAIT comes after
// its RECORD and every explicit edge goes forward, so most traces execute
// completely and none has a cycle.
Trace random_trace(std::mt19937_64& rng, const RandomTraceShape& shape = {});

}  // namespace cc::test
