// A synthetic ring AllReduce (reduce-scatter then all-gather, pull model with
// READY/FIN handshakes, one stream per rank, graph mode on OUTPUT), for the
// benchmarks of stages 4 and 5 until `collcheck gen` provides HCCL's exact
// schedules. About 10·n² tasks for n ranks.
#pragma once

#include "model/trace.h"

namespace cc::bench {

Trace synthetic_ring_allreduce(u32 ranks, u64 count_per_rank_chunk);

}  // namespace cc::bench
