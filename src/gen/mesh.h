// Mesh AllGather, ReduceScatter and AllReduce inside one server, v1 style
// with slave streams and local notifies (algorithms.md §5).
#pragma once

#include "gen/links.h"
#include "gen/params.h"
#include "gen/slicing.h"

namespace cc::gen {

// §5.1 template for member `me` (streams: s_k for round k ≤ n−2, s0 last):
// block i of OUT is blocks[i]; when IN is not OUT the own block is first
// copied from IN at `in_off`.
void mesh_allgather(Emitter& e, const Comm& c, u32 me, Buf in, Buf out, const Parts& blocks,
                    u64 in_off);

// §5.2 executor and template: segment i of IN is segs[i], reduced over the
// mesh with n−1 streams (channel c.ch + 1 + j for stream j).
void mesh_reduce_scatter(Emitter& e, const Comm& c, u32 me, Buf in, Buf scr, const Parts& segs,
                         bool inline_reduce);

// §5.3 on one server: mesh ReduceScatter on IN (SCR = OUT), the own segment
// copied to OUT, mesh AllGather on OUT.
void mesh_allreduce(Emitter& e, const Comm& c, u32 me, Buf in, Buf out, u64 bytes,
                    bool inline_reduce);

Result<Trace> gen_mesh_allgather(const GenParams& p);
Result<Trace> gen_mesh_reduce_scatter(const GenParams& p);
Result<Trace> gen_mesh_allreduce(const GenParams& p);

}  // namespace cc::gen
