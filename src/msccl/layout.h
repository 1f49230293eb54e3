// Where a step's chunks are in collcheck's buffers (msccl.md §4.2, §4.3):
// the real INPUT/OUTPUT sizes of the collective, SCRATCH from s_chunks, and
// the in-place aliasing of one call mode.
#pragma once

#include "model/msccl_program.h"

namespace cc::msccl {

// collcheck's buffers of an MSCCL rank.
enum class Space : u8 { Input, Output, Scratch };

struct Place {
  Space space = Space::Input;
  i64 off = 0;  // chunk index in that buffer (may be negative or past the end: 201)
};

// The in-place aliasing families of §4.3.
enum class Alias : u8 {
  None,        // out of place
  OutIsIn,     // allreduce, alltoall(v), broadcast, reduce, send, recv: o[k] is i[k] (both kept in INPUT)
  InInOut,     // allgather, gather: i[k] is o[r·p + k] (kept in OUTPUT)
  OutInIn,     // reducescatter, scatter: o[k] is i[r·p + k] (kept in INPUT)
};

struct Layout {
  i64 in_chunks = 0, out_chunks = 0;  // the real buffers (§4.2)
  i32 p = 0;                          // chunks per rank
  Alias alias = Alias::None;

  Layout(const Program& prog, bool inplace);

  i64 chunks(Space s, const Gpu& g) const {
    return s == Space::Input ? in_chunks : s == Space::Output ? out_chunks : g.s_chunks;
  }
  // Chunks [off, off+cnt) of `b` on rank `rank`. Aliasing applies only when
  // the whole range lies inside the buffer the step names; a range that runs
  // past it stays in that buffer, where it is a 201.
  Place resolve(i32 rank, const Gpu& g, Buf b, i32 off, i32 cnt) const;
};

}  // namespace cc::msccl
