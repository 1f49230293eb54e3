// Hierarchical 2-level AllReduce (algorithms.md §16): mesh ReduceScatter
// inside each server, an AllReduce across servers (ring, NHR or HD) on each
// rank's segment, mesh AllGather inside each server.
#pragma once

#include "gen/params.h"

namespace cc::gen {

enum class InterServer : u8 { Ring, Nhr, Hd };

Result<Trace> gen_hierarchical(const GenParams& p, InterServer level1);

}  // namespace cc::gen
