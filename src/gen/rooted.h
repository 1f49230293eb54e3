// The rooted collectives: Broadcast (ring, star, NHR; algorithms.md §10),
// Reduce (ring, §11), Scatter (mesh, §12) and Gather (star, §13).
#pragma once

#include "gen/params.h"

namespace cc::gen {

Result<Trace> gen_broadcast_ring(const GenParams& p);
Result<Trace> gen_broadcast_star(const GenParams& p);
Result<Trace> gen_broadcast_nhr(const GenParams& p);
Result<Trace> gen_reduce_ring(const GenParams& p);
Result<Trace> gen_scatter_mesh(const GenParams& p);
Result<Trace> gen_gather_star(const GenParams& p);

}  // namespace cc::gen
