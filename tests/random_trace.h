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
  // This share of the reduces are inline reduces (SDMA, a quarter RDMA),
  // two thirds of them of class
  // (SUM, FP16), the rest of a random class among (SUM or MAX) x (INT8 or
  // FP16), so that reduces of one class into the
  // same bytes (atomic, checks.md stage 4) and of different classes meet;
  // `reduce_share` of the data tasks are reduces (0: the default mix).
  double sdma_reduce_share = 0;
  double reduce_share = 0;
  // Reduces read INPUT and write CCL; copies read INPUT or CCL and write
  // OUTPUT: the layout of a reduce executor, where reduces of several
  // streams meet in one buffer and nothing else writes it.
  bool reduce_layout = false;
};

// Graphs rich in SDMA reduces into shared bytes.
inline RandomTraceShape sdma_reduce_shape() {
  RandomTraceShape s;
  s.buffer_bytes = 32;
  s.sdma_reduce_share = 0.8;
  s.reduce_share = 0.8;
  s.reduce_layout = true;
  return s;
}

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
