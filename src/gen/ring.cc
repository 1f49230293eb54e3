#include "gen/ring.h"

#include "gen/frame.h"

namespace cc::gen {

void ring_allgather(const At& at, Buf in, Buf out, const Parts& blocks, u64 in_off, bool barrier) {
  u32 n = at.c.size, r = at.me;
  u32 prev = md(i64{r} - 1, n), next = md(i64{r} + 1, n);
  if (!(in == out)) at.copy(at.mine(in, {in_off, blocks[r].len}), at.mine(out, blocks[r]));
  for (u32 step = 0; step + 1 < n; ++step) {
    u32 x = md(i64{r} - 1 - step, n);
    at.rec(prev, Notify::READY);
    at.wt(next, Notify::READY);
    at.rec(next, Notify::FIN);
    at.wt(prev, Notify::FIN);
    at.copy(at.on(prev, out, blocks[x]), at.mine(out, blocks[x]));
  }
  if (barrier) gen::barrier(at, prev, next);
}

namespace {

// The Reducer of §1.5 with localSrc = localDst = IN[x], peer range prev.IN[x].
void receive_reduce(const At& at, u32 prev, Buf in, Buf scr, const Part& x, bool inline_reduce) {
  at.wt(prev, Notify::FIN);
  if (inline_reduce) {
    at.red(at.on(prev, in, x), at.mine(in, x));
  } else {
    at.copy(at.on(prev, in, x), at.mine(scr, x));
    at.red(at.mine(scr, x), at.mine(in, x));
  }
}

void offer(const At& at, u32 prev, u32 next) {
  at.rec(prev, Notify::READY);
  at.wt(next, Notify::READY);
  at.rec(next, Notify::FIN);
}

}  // namespace

void ring_reduce_scatter(const At& at, Buf in, Buf out, Buf scr, const Parts& slices, u64 out_off,
                         bool barrier, bool inline_reduce) {
  u32 n = at.c.size, r = at.me;
  u32 prev = md(i64{r} - 1, n), next = md(i64{r} + 1, n);
  offer(at, prev, next);
  for (u32 i = 0; i + 2 < n; ++i) {
    receive_reduce(at, prev, in, scr, slices[md(i64{r} - 2 - i, n)], inline_reduce);
    offer(at, prev, next);
  }
  receive_reduce(at, prev, in, scr, slices[r], inline_reduce);
  if (!(in == out)) at.copy(at.mine(in, slices[r]), at.mine(out, {out_off, slices[r].len}));
  if (barrier) gen::barrier(at, prev, next);
}

void ring_allreduce(const At& at, Buf in, Buf out, u64 bytes, bool inline_reduce) {
  Parts s = even_split(bytes, at.c.size);
  ring_reduce_scatter(at, in, in, out, s, 0, false, inline_reduce);
  ring_allgather(at, in, out, s, s[at.me].off, true);
}

Result<Trace> gen_ring_allreduce(const GenParams& p) {
  Emitter e = make_emitter("ring", p);
  Comm world{0, 1, p.ranks, 0};
  return allreduce_frame(e, p, [&](u32 r, Buf in, Buf out, u64 bytes) {
    ring_allreduce(At{e, world, r, 0}, in, out, bytes, !p.non_inline);
  });
}

Result<Trace> gen_ring_allgather(const GenParams& p) {
  Emitter e = make_emitter("ring", p);
  Comm world{0, 1, p.ranks, 0};
  return allgather_frame(e, p, [&](u32 r, Buf in, Buf out, const Parts& blocks) {
    ring_allgather(At{e, world, r, 0}, in, out, blocks, 0, true);
  });
}

Result<Trace> gen_ring_reduce_scatter(const GenParams& p) {
  Emitter e = make_emitter("ring", p);
  Comm world{0, 1, p.ranks, 0};
  return reduce_scatter_frame(e, p, [&](u32 r, Buf in, Buf out, Buf scr, const Parts& blocks) {
    ring_reduce_scatter(At{e, world, r, 0}, in, out, scr, blocks, 0, true, !p.non_inline);
  });
}

}  // namespace cc::gen
