#include "gen/mesh.h"

#include "gen/frame.h"

namespace cc::gen {

void mesh_allgather(Emitter& e, const Comm& c, u32 me, Buf in, Buf out, const Parts& blocks,
                    u64 in_off) {
  u32 n = c.size, r = c.rank(me), slaves = n >= 2 ? n - 2 : 0;
  if (!(in == out)) e.copy(r, 0, e.at(r, in, in_off, blocks[me].len), e.at(r, out, blocks[me]));
  for (u32 k = 1; k <= slaves; ++k) {
    local_wait(e, r, k, Notify::M2S, k);
    local_record(e, r, 0, Notify::M2S, k);
  }
  for (u32 k = 1; k < n; ++k) {
    At at{e, c, me, k <= slaves ? k : 0};
    u32 p = md(i64{me} - k, n);
    at.rec(p, Notify::READY);
    at.wt(p, Notify::READY);
    at.rec(p, Notify::FIN);
    at.wt(p, Notify::FIN);
    at.copy(at.on(p, out, blocks[p]), at.mine(out, blocks[p]));
    dra(at, p);
  }
  for (u32 k = 1; k <= slaves; ++k) {
    local_wait(e, r, 0, Notify::S2M, k);
    local_record(e, r, k, Notify::S2M, k);
  }
}

namespace {

// Template(j) of §5.2 on one stream: rounds t = 1 … n−1 with a rotated
// (src, dst) perfect matching; `parts[i]` is part j of segment i.
void mesh_rs_stream(const At& at, u32 j, Buf in, Buf scr, const Parts& parts, bool inline_reduce) {
  u32 n = at.c.size, r = at.me;
  auto peers = [&](u32 t) {
    u32 idx = (t + j - 1) % (n - 1);
    return std::pair{md(i64{r} + 1 + idx, n), md(i64{r} - 1 - idx, n)};
  };
  for (u32 t = 1; t < n; ++t) {
    auto [src, dst] = peers(t);
    at.rec(src, Notify::READY);
    at.wt(dst, Notify::READY);
    at.rec(dst, Notify::FIN);
    at.wt(src, Notify::FIN);
    if (inline_reduce) {
      at.red(at.on(src, in, parts[r]), at.mine(in, parts[r]));
    } else {
      at.copy(at.on(src, in, parts[r]), at.mine(scr, parts[r]));
      at.red(at.mine(scr, parts[r]), at.mine(in, parts[r]));
    }
  }
  for (u32 t = 1; t < n; ++t) {
    auto [src, dst] = peers(t);
    barrier(at, src, dst);
  }
}

}  // namespace

void mesh_reduce_scatter(Emitter& e, const Comm& c, u32 me, Buf in, Buf scr, const Parts& segs,
                         bool inline_reduce) {
  u32 n = c.size, r = c.rank(me);
  if (n < 2) return;
  std::vector<Parts> split(n);
  for (u32 i = 0; i < n; ++i) split[i] = stream_split(segs[i], n - 1);
  auto parts_of = [&](u32 j) {
    Parts p(n);
    for (u32 i = 0; i < n; ++i) p[i] = split[i][j];
    return p;
  };
  for (u32 j = 0; j + 2 < n; ++j) {
    Comm sub = c;
    sub.ch = c.ch + 1 + j;
    local_wait(e, r, j + 1, Notify::M2S, j + 1);
    mesh_rs_stream(At{e, sub, me, j + 1}, j, in, scr, parts_of(j), inline_reduce);
    local_record(e, r, j + 1, Notify::S2M, j + 1);
    local_record(e, r, 0, Notify::M2S, j + 1);
  }
  Comm sub = c;
  sub.ch = c.ch + 1 + (n - 2);
  mesh_rs_stream(At{e, sub, me, 0}, n - 2, in, scr, parts_of(n - 2), inline_reduce);
  for (u32 k = 1; k + 1 < n; ++k) local_wait(e, r, 0, Notify::S2M, k);
}

Result<Trace> gen_mesh_allgather(const GenParams& p) {
  Emitter e = make_emitter("mesh", p);
  Comm world{0, 1, p.ranks, 0};
  // The op-base executor's copy INPUT_CCL → OUTPUT_CCL[r·cur] is the
  // template's own first copy (IN ≠ OUT), so one body serves both modes.
  return allgather_frame(e, p, [&](u32 r, Buf in, Buf out, const Parts& blocks) {
    mesh_allgather(e, world, r, in, out, blocks, 0);
  });
}

Result<Trace> gen_mesh_reduce_scatter(const GenParams& p) {
  Emitter e = make_emitter("mesh", p);
  Comm world{0, 1, p.ranks, 0};
  return reduce_scatter_frame(e, p, [&](u32 r, Buf in, Buf out, Buf scr, const Parts& segs) {
    mesh_reduce_scatter(e, world, r, in, scr, segs, !p.non_inline);
    e.copy(r, 0, e.at(r, in, segs[r]), e.at(r, out, 0, segs[r].len));
  });
}

void mesh_allreduce(Emitter& e, const Comm& c, u32 me, Buf in, Buf out, u64 bytes, bool inl) {
  Parts segs = even_split(bytes, c.size);
  u32 r = c.rank(me);
  mesh_reduce_scatter(e, c, me, in, out, segs, inl);
  e.copy(r, 0, e.at(r, in, segs[me]), e.at(r, out, segs[me]));
  mesh_allgather(e, c, me, out, out, segs, 0);
}

Result<Trace> gen_mesh_allreduce(const GenParams& p) {
  Emitter e = make_emitter("mesh", p);
  Comm world{0, 1, p.ranks, 0};
  return allreduce_frame(e, p, [&](u32 r, Buf in, Buf out, u64 bytes) {
    mesh_allreduce(e, world, r, in, out, bytes, !p.non_inline);
  });
}

}  // namespace cc::gen
