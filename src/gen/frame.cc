#include "gen/frame.h"

#include <fmt/format.h>

namespace cc::gen {

Result<std::vector<Iter>> iterations(u64 total, u64 max, const char* what) {
  std::vector<Iter> out;
  if (total == 0) return out;
  if (max == 0)
    return Error{fmt::format("--ccl-bytes is too small for one iteration of {}", what)};
  for (u64 off = 0; off < total; off += max) out.push_back({off, std::min(max, total - off)});
  return out;
}

void copy_in(Emitter& e, u32 r, Buf from, Buf to, const Iter& it) {
  e.copy(r, 0, e.at(r, from, it.off, it.cur), e.at(r, to, 0, it.cur));
}

void copy_out(Emitter& e, u32 r, Buf from, Buf to, const Iter& it) {
  e.copy(r, 0, e.at(r, from, 0, it.cur), e.at(r, to, it.off, it.cur));
}

void copy_blocks_in(Emitter& e, u32 r, u32 n, Buf user, Buf ccl, u64 block, const Iter& it) {
  if (it.cur == block) {
    e.copy(r, 0, e.at(r, user, 0, n * block), e.at(r, ccl, 0, n * block));
    return;
  }
  for (u32 i = 0; i < n; ++i)
    e.copy(r, 0, e.at(r, user, i * block + it.off, it.cur), e.at(r, ccl, i * it.cur, it.cur));
}

void copy_blocks_out(Emitter& e, u32 r, u32 n, Buf ccl, Buf user, u64 block, const Iter& it) {
  for (u32 i = 0; i < n; ++i)
    e.copy(r, 0, e.at(r, ccl, i * it.cur, it.cur), e.at(r, user, i * block + it.off, it.cur));
}


Result<Trace> allreduce_frame(Emitter& e, const GenParams& p, const AllReduceBody& body,
                              bool copy_out_root_only) {
  u64 u = size_of(p.dtype), d = p.count * u;
  if (p.graph) {
    for (u32 r = 0; r < p.ranks; ++r) body(r, e.input(), e.output(), d);
    return e.finish();
  }
  auto its = iterations(d, max_bytes_flat(p.ccl_bytes, u), "AllReduce");
  if (!its) return its.error();
  Buf in = e.input_ccl(), out = e.output_ccl();
  for (const Iter& it : *its)
    for (u32 r = 0; r < p.ranks; ++r) {
      copy_in(e, r, e.input(), in, it);
      body(r, in, out, it.cur);
      if (!copy_out_root_only || r == p.root) copy_out(e, r, out, e.output(), it);
    }
  return e.finish();
}

Result<Trace> allgather_frame(Emitter& e, const GenParams& p, const AllGatherBody& body) {
  u32 n = p.ranks;
  u64 u = size_of(p.dtype), d = p.count * u;
  if (p.graph) {
    Parts blocks = equal_blocks(d, n);
    for (u32 r = 0; r < n; ++r) body(r, e.input(), e.output(), blocks);
    return e.finish();
  }
  auto its = iterations(d, max_bytes_blocked(p.ccl_bytes, n, u), "AllGather");
  if (!its) return its.error();
  Buf in = e.input_ccl(), out = e.output_ccl();
  for (const Iter& it : *its) {
    Parts blocks = equal_blocks(it.cur, n);
    for (u32 r = 0; r < n; ++r) {
      copy_in(e, r, e.input(), in, it);
      body(r, in, out, blocks);
      copy_blocks_out(e, r, n, out, e.output(), d, it);
    }
  }
  return e.finish();
}

Result<Trace> reduce_scatter_frame(Emitter& e, const GenParams& p, const ReduceScatterBody& body) {
  u32 n = p.ranks;
  u64 u = size_of(p.dtype), d = p.count * u;
  if (p.graph) {
    Parts blocks = equal_blocks(d, n);
    Buf scr = p.non_inline ? e.scratch() : Buf{};
    for (u32 r = 0; r < n; ++r) body(r, e.input(), e.output(), scr, blocks);
    return e.finish();
  }
  auto its = iterations(d, max_bytes_blocked(p.ccl_bytes, n, u), "ReduceScatter");
  if (!its) return its.error();
  Buf in = e.input_ccl(), out = e.output_ccl();
  for (const Iter& it : *its) {
    Parts blocks = equal_blocks(it.cur, n);
    for (u32 r = 0; r < n; ++r) {
      copy_blocks_in(e, r, n, e.input(), in, d, it);
      body(r, in, out, out, blocks);
      copy_out(e, r, out, e.output(), it);
    }
  }
  return e.finish();
}

}  // namespace cc::gen
