// Broadcast (algorithms.md §10): in place, on BUF = INPUT_CCL[0,+cur)
// (op-base) or INPUT (graph).
#include "gen/frame.h"
#include "gen/links.h"
#include "gen/nhr.h"
#include "gen/rooted.h"

namespace cc::gen {

namespace {

using BroadcastBody = std::function<void(u32 r, Buf buf, u64 bytes)>;

// §1.8 Broadcast row: the root stages its input in, the others copy out.
Result<Trace> broadcast_frame(Emitter& e, const GenParams& p, const BroadcastBody& body) {
  u64 u = size_of(p.dtype), d = p.count * u;
  if (p.graph) {
    for (u32 r = 0; r < p.ranks; ++r) body(r, e.input(), d);
    return e.finish();
  }
  auto its = iterations(d, max_bytes_flat(p.ccl_bytes, u), "Broadcast");
  if (!its) return its.error();
  Buf buf = e.input_ccl();
  for (const Iter& it : *its)
    for (u32 r = 0; r < p.ranks; ++r) {
      if (r == p.root) copy_in(e, r, e.input(), buf, it);
      body(r, buf, it.cur);
      if (r != p.root) copy_out(e, r, buf, e.input(), it);
    }
  return e.finish();
}

// Pieces of §10.1 and §10.3: P = RU(⌈count/n⌉·u, 128) over D bytes.
Parts broadcast_pieces(u64 d, u64 u, u32 n) {
  return clipped_pieces(d, round_up(ceil_div(d / u, n) * u, kSliceAlign), n);
}

void ring_broadcast(const At& at, u32 root, Buf buf, u64 d, u64 u) {
  u32 n = at.c.size, r = at.me;
  u32 prev = md(i64{r} - 1, n), next = md(i64{r} + 1, n);
  bool is_root = r == root, last = r == md(i64{root} - 1, n);
  Parts pieces = broadcast_pieces(d, u, n);
  at.rec(prev, Notify::READY);
  at.wt(next, Notify::READY);
  for (u32 t = 0; t < n; ++t) {
    if (!is_root) {
      at.wt(prev, Notify::FIN);
      at.copy(at.on(prev, buf, pieces[t]), at.mine(buf, pieces[t]));
      at.rec(prev, Notify::READY);
    }
    if (!last) {
      at.rec(next, Notify::FIN);
      at.wt(next, Notify::READY);
    }
  }
  at.rec(next, Notify::FIN);
  at.wt(prev, Notify::FIN);
}

void star_broadcast(const At& at, u32 root, Buf buf, u64 d) {
  if (d == 0) return;
  u32 n = at.c.size, r = at.me;
  if (r != root) {
    at.rec(root, Notify::READY);
    at.wt(root, Notify::FIN);
    at.copy(at.on(root, buf, {0, d}), at.mine(buf, {0, d}));
    barrier(at, root, root);
    return;
  }
  for (u32 q = 0; q < n; ++q) {
    if (q == root) continue;
    at.wt(q, Notify::READY);
    at.rec(q, Notify::FIN);
    at.wt(q, Notify::READY);
    at.rec(q, Notify::READY);
    at.wt(q, Notify::FIN);
    at.rec(q, Notify::FIN);
  }
}

// §10.3: NHR scatter from the root, then NHR AllGather on the same buffer.
void nhr_broadcast(const At& at, u32 root, Buf buf, u64 d, u64 u) {
  u32 n = at.c.size, r = at.me, steps = nhr_steps(n);
  NhrSlices s{broadcast_pieces(d, u, n), nhr_sigma(n)};
  bool pow2 = (n & (n - 1)) == 0;
  u32 delta_r = md(i64{root} - r, n);
  for (u32 t = 0; t < steps; ++t) {
    u32 delta = 1u << t;
    u32 w = !pow2 && t + 1 == steps ? n - delta : delta;
    if (delta_r < w) {
      u32 to = md(i64{r} - delta, n);
      at.rec(to, Notify::READY);
      at.wt(to, Notify::FIN);
    } else if (delta <= delta_r && delta_r < w + delta) {
      u32 from = md(i64{r} + delta, n);
      at.wt(from, Notify::READY);
      for (const Part& x : nhr_step_ranges(s, r, delta)) at.copy(at.on(from, buf, x), at.mine(buf, x));
      at.rec(from, Notify::FIN);
    }
  }
  nhr_allgather(at, buf, buf, s, 0);
}

}  // namespace

Result<Trace> gen_broadcast_ring(const GenParams& p) {
  Emitter e = make_emitter("ring", p);
  Comm world{0, 1, p.ranks, 0};
  u64 u = size_of(p.dtype);
  return broadcast_frame(e, p, [&](u32 r, Buf buf, u64 bytes) {
    ring_broadcast(At{e, world, r, 0}, p.root, buf, bytes, u);
  });
}

Result<Trace> gen_broadcast_star(const GenParams& p) {
  Emitter e = make_emitter("star", p);
  Comm world{0, 1, p.ranks, 0};
  return broadcast_frame(e, p, [&](u32 r, Buf buf, u64 bytes) {
    star_broadcast(At{e, world, r, 0}, p.root, buf, bytes);
  });
}

Result<Trace> gen_broadcast_nhr(const GenParams& p) {
  Emitter e = make_emitter("nhr", p);
  Comm world{0, 1, p.ranks, 0};
  u64 u = size_of(p.dtype);
  return broadcast_frame(e, p, [&](u32 r, Buf buf, u64 bytes) {
    nhr_broadcast(At{e, world, r, 0}, p.root, buf, bytes, u);
  });
}

}  // namespace cc::gen
