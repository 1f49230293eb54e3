// Ring AllGather, ReduceScatter and AllReduce (algorithms.md §2–§4), as
// templates that hierarchical algorithms reuse and as generators.
#pragma once

#include "gen/links.h"
#include "gen/params.h"
#include "gen/slicing.h"

namespace cc::gen {

// §2, for member `at.me`: blocks[x] of OUT, own block read from IN at
// `in_off` (skipped when IN is OUT), final barrier optional.
void ring_allgather(const At& at, Buf in, Buf out, const Parts& blocks, u64 in_off, bool barrier);

// §3: slices of IN reduced around the ring; the own slice copied to OUT at
// `out_off` when IN is not OUT; `scr` stages peer data in the non-inline
// variant.
void ring_reduce_scatter(const At& at, Buf in, Buf out, Buf scr, const Parts& slices, u64 out_off,
                         bool barrier, bool inline_reduce);

// §4: AllReduce of `bytes` bytes from IN to OUT (SCR = OUT).
void ring_allreduce(const At& at, Buf in, Buf out, u64 bytes, bool inline_reduce);

Result<Trace> gen_ring_allreduce(const GenParams& p);
Result<Trace> gen_ring_allgather(const GenParams& p);
Result<Trace> gen_ring_reduce_scatter(const GenParams& p);

}  // namespace cc::gen
