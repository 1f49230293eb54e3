// Executor framing (algorithms.md §1.8): the op-base loop over pieces of the
// user data that fit the communication buffers, and the staging copies the
// executor issues around each template run. Graph mode runs once on
// INPUT/OUTPUT without copies.
#pragma once

#include <functional>

#include "gen/emitter.h"
#include "gen/params.h"
#include "gen/slicing.h"

namespace cc::gen {

// One executor iteration: `off` bytes of the (per-rank) data already done,
// `cur` bytes in this one.
struct Iter {
  u64 off = 0;
  u64 cur = 0;
};

// Bytes per iteration: ⌊C/u⌋ elements (AllReduce, Broadcast, Reduce, Send)
// and ⌊⌊C/n⌋/128⌋·128/u elements (AllGather, ReduceScatter, Scatter).
inline u64 max_bytes_flat(u64 ccl, u64 u) { return ccl / u * u; }
inline u64 max_bytes_blocked(u64 ccl, u32 n, u64 u) { return ccl / n / kSliceAlign * kSliceAlign / u * u; }

// The iterations over `total` bytes with at most `max` each (none if total
// is 0); an error when `max` is 0 (a CCL buffer too small for one element).
Result<std::vector<Iter>> iterations(u64 total, u64 max, const char* what);

// Staging copies of the main stream (stream 0).
// COPY(INPUT[off,+cur) → dst[0,+cur)).
void copy_in(Emitter& e, u32 r, Buf from, Buf to, const Iter& it);
// COPY(src[0,+cur) → OUTPUT[off,+cur)).
void copy_out(Emitter& e, u32 r, Buf from, Buf to, const Iter& it);
// Blocks of the user buffer (block i at i·D+off) to/from a CCL whose block
// i is at i·cur: COPY(user[i·D+off,+cur) → ccl[i·cur,+cur)) or back, one
// single copy when the iteration covers the whole user block (cur == D).
void copy_blocks_in(Emitter& e, u32 r, u32 n, Buf user, Buf ccl, u64 block, const Iter& it);
void copy_blocks_out(Emitter& e, u32 r, u32 n, Buf ccl, Buf user, u64 block, const Iter& it);

// Whole executors of §1.8 around a template that emits rank r's part of one
// run. AllReduce: IN → OUT over `bytes`.
using AllReduceBody = std::function<void(u32 r, Buf in, Buf out, u64 bytes)>;
// Reduce uses the same frame with the post-copy on the root only.
Result<Trace> allreduce_frame(Emitter& e, const GenParams& p, const AllReduceBody& body,
                              bool copy_out_root_only = false);
// AllGather: own block from IN[0,+len) into OUT block r; block i at blocks[i].
using AllGatherBody = std::function<void(u32 r, Buf in, Buf out, const Parts& blocks)>;
Result<Trace> allgather_frame(Emitter& e, const GenParams& p, const AllGatherBody& body);
// ReduceScatter: IN block i at blocks[i], result into OUT[0,+len); `scr`
// stages peer data (SCRATCH in graph mode, OUTPUT_CCL in op-base).
using ReduceScatterBody =
    std::function<void(u32 r, Buf in, Buf out, Buf scr, const Parts& blocks)>;
Result<Trace> reduce_scatter_frame(Emitter& e, const GenParams& p, const ReduceScatterBody& body);

}  // namespace cc::gen
