// Reduce (ring, algorithms.md §11), Scatter (mesh, §12), Gather (star, §13).
#include "gen/frame.h"
#include "gen/links.h"
#include "gen/rooted.h"

namespace cc::gen {

namespace {

void ring_reduce(const At& at, u32 root, Buf in, Buf out, u64 d, bool inl) {
  u32 n = at.c.size, r = at.me;
  u32 prev = md(i64{r} - 1, n), next = md(i64{r} + 1, n);
  Part all{0, d};
  at.rec(prev, Notify::READY);
  at.wt(next, Notify::READY);
  if (r == md(i64{root} + 1, n)) {
    at.rec(next, Notify::FIN);  // its IN is offered as is
    at.wt(next, Notify::READY);
  } else {
    at.wt(prev, Notify::FIN);
    bool is_root = r == root;
    if (inl) {
      at.red(at.on(prev, in, all), at.mine(in, all));
      if (is_root) at.copy(at.mine(in, all), at.mine(out, all));
    } else {
      at.copy(at.on(prev, in, all), at.mine(out, all));
      if (is_root) at.red(at.mine(in, all), at.mine(out, all));
      else at.red(at.mine(out, all), at.mine(in, all));
    }
    at.rec(prev, Notify::READY);
    if (!is_root) {
      at.rec(next, Notify::FIN);
      at.wt(next, Notify::READY);
    }
  }
  at.rec(next, Notify::FIN);
  at.wt(prev, Notify::FIN);
}

// §12 per iteration of c bytes per rank. Op-base: IN = OUT = INPUT_CCL, the
// own block at r·c, then to OUTPUT_CCL and OUTPUT. Graph [MODEL]: a non-root
// reads root.INPUT[r·D] straight into its OUTPUT.
void mesh_scatter(Emitter& e, const Comm& c, u32 me, u32 root, Buf src, Buf dst, u64 block,
                  u64 dst_off) {
  u32 n = c.size;
  At at{e, c, me, 0};
  Part own{me * block, block};
  if (me == root) {
    for (u32 q = 0; q < n; ++q) {
      if (q == root) continue;
      at.wt(q, Notify::READY);
      at.rec(q, Notify::FIN);
    }
  } else {
    at.rec(root, Notify::READY);
    at.wt(root, Notify::FIN);
    at.copy(at.on(root, src, own), at.mine(dst, {dst_off, block}));
  }
  for (u32 q = 0; q < n; ++q)
    if (q != me) dra(at, q);
}

}  // namespace

Result<Trace> gen_reduce_ring(const GenParams& p) {
  Emitter e = make_emitter("ring", p);
  Comm world{0, 1, p.ranks, 0};
  return allreduce_frame(
      e, p,
      [&](u32 r, Buf in, Buf out, u64 bytes) {
        ring_reduce(At{e, world, r, 0}, p.root, in, out, bytes, !p.non_inline);
      },
      true);
}

Result<Trace> gen_scatter_mesh(const GenParams& p) {
  Emitter e = make_emitter("mesh", p);
  Comm world{0, 1, p.ranks, 0};
  u32 n = p.ranks;
  u64 u = size_of(p.dtype), d = p.count * u;
  if (p.graph) {
    for (u32 r = 0; r < n; ++r) {
      mesh_scatter(e, world, r, p.root, e.input(), e.output(), d, 0);
      if (r == p.root) e.copy(r, 0, e.at(r, e.input(), r * d, d), e.at(r, e.output(), 0, d));
    }
    return e.finish();
  }
  auto its = iterations(d, max_bytes_blocked(p.ccl_bytes, n, u), "Scatter");
  if (!its) return its.error();
  Buf in = e.input_ccl(), out = e.output_ccl();
  for (const Iter& it : *its)
    for (u32 r = 0; r < n; ++r) {
      if (r == p.root) copy_blocks_in(e, r, n, e.input(), in, d, it);
      mesh_scatter(e, world, r, p.root, in, in, it.cur, r * it.cur);
      e.copy(r, 0, e.at(r, in, r * it.cur, it.cur), e.at(r, out, 0, it.cur));
      copy_out(e, r, out, e.output(), it);
    }
  return e.finish();
}

Result<Trace> gen_gather_star(const GenParams& p) {
  // §13 [MODEL]: no op-base executor; the root pulls every sender's INPUT.
  Emitter e = make_emitter("star", p);
  Comm world{0, 1, p.ranks, 0};
  u32 n = p.ranks, root = p.root;
  u64 d = p.count * size_of(p.dtype);
  if (d == 0) return e.finish();
  for (u32 r = 0; r < n; ++r) {
    At at{e, world, r, 0};
    if (r != root) {
      at.wt(root, Notify::READY);
      at.rec(root, Notify::FIN);
      at.wt(root, Notify::READY);
      at.rec(root, Notify::READY);
      at.wt(root, Notify::FIN);
      at.rec(root, Notify::FIN);
      continue;
    }
    for (u32 q = 0; q < n; ++q) {
      Part slot{q * d, d};
      if (q == root) {
        at.copy(at.mine(e.input(), {0, d}), at.mine(e.output(), slot));
        continue;
      }
      at.rec(q, Notify::READY);
      at.wt(q, Notify::FIN);
      at.copy(at.on(q, e.input(), {0, d}), at.mine(e.output(), slot));
      barrier(at, q, q);
    }
  }
  return e.finish();
}

}  // namespace cc::gen
