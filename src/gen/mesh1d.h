// New-op "mesh1D" templates on one CCL buffer (algorithms.md §6): one thread
// (stream) per peer, ACK/DATA handshakes, PRESYNC/POSTSYNC.
#pragma once

#include "gen/params.h"

namespace cc::gen {

Result<Trace> gen_mesh1d_allgather(const GenParams& p);
Result<Trace> gen_mesh1d_reduce_scatter(const GenParams& p);
Result<Trace> gen_mesh1d_allreduce(const GenParams& p);  // two-shot

}  // namespace cc::gen
