#include "gen/nhr.h"

#include "gen/frame.h"

namespace cc::gen {

std::vector<Part> nhr_step_ranges(const NhrSlices& s, i64 first, u32 delta) {
  u32 n = static_cast<u32>(s.table.size());
  u32 m = static_cast<u32>((u64{n} - 1 + delta) / (2 * u64{delta}));
  std::vector<u32> phys(m);
  for (u32 j = 0; j < m; ++j) phys[j] = s.sigma[md(first - i64{j} * 2 * delta, n)];
  return merged_ranges(s.table, std::move(phys));
}

void nhr_reduce_scatter(const At& at, Buf in, Buf out, Buf scr, const NhrSlices& s, u64 out_off,
                        bool inl, bool staging_bug) {
  u32 n = at.c.size, r = at.me, steps = nhr_steps(n);
  for (u32 t = 0; t < steps; ++t) {
    u32 delta = 1u << t;
    u32 to = md(i64{r} - delta, n), from = md(i64{r} + delta, n);
    bool last = t + 1 == steps, bug = staging_bug && !inl && last && !(in == out);
    at.rec(to, Notify::READY);
    at.wt(from, Notify::READY);
    for (const Part& x : nhr_step_ranges(s, r, delta)) {
      if (inl) {
        at.red(at.on(from, in, x), at.mine(in, x));
      } else {
        at.copy(at.on(from, in, x), at.mine(scr, x));
        if (!bug) at.red(at.mine(scr, x), at.mine(in, x));
      }
    }
    if (last && !(in == out)) {
      const Part& own = s.table[s.sigma[r]];
      if (bug) at.red(at.mine(in, own), at.mine(out, {out_off, own.len}));  // the staged data are lost
      else at.copy(at.mine(in, own), at.mine(out, {out_off, own.len}));
    }
    at.rec(from, Notify::FIN);
    at.wt(to, Notify::FIN);
  }
}

void nhr_allgather(const At& at, Buf in, Buf out, const NhrSlices& s, u64 in_off) {
  u32 n = at.c.size, r = at.me, steps = nhr_steps(n);
  if (!(in == out)) {
    const Part& own = s.table[s.sigma[r]];
    at.copy(at.mine(in, {in_off, own.len}), at.mine(out, own));
  }
  for (u32 t = 0; t < steps; ++t) {
    u32 delta = 1u << (steps - 1 - t);
    u32 from = md(i64{r} - delta, n), to = md(i64{r} + delta, n);
    at.rec(to, Notify::READY);
    at.wt(from, Notify::READY);
    for (const Part& y : nhr_step_ranges(s, i64{r} - delta, delta))
      at.copy(at.on(from, out, y), at.mine(out, y));
    at.rec(from, Notify::FIN);
    at.wt(to, Notify::FIN);
  }
}

void nhr_allreduce(const At& at, Buf in, Buf out, u64 bytes, bool inl) {
  NhrSlices s{even_split(bytes, at.c.size), nhr_sigma(at.c.size)};
  nhr_reduce_scatter(at, in, in, out, s, 0, inl);
  nhr_allgather(at, in, out, s, s.table[s.sigma[at.me]].off);
}

namespace {

std::vector<u32> identity(u32 n) {
  std::vector<u32> v(n);
  for (u32 i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

Result<Trace> gen_nhr_allreduce(const GenParams& p) {
  Emitter e = make_emitter("nhr", p);
  Comm world{0, 1, p.ranks, 0};
  return allreduce_frame(e, p, [&](u32 r, Buf in, Buf out, u64 bytes) {
    nhr_allreduce(At{e, world, r, 0}, in, out, bytes, !p.non_inline);
  });
}

Result<Trace> gen_nhr_allgather(const GenParams& p) {
  Emitter e = make_emitter("nhr", p);
  Comm world{0, 1, p.ranks, 0};
  std::vector<u32> sigma = identity(p.ranks);
  return allgather_frame(e, p, [&](u32 r, Buf in, Buf out, const Parts& blocks) {
    nhr_allgather(At{e, world, r, 0}, in, out, NhrSlices{blocks, sigma}, 0);
  });
}

Result<Trace> gen_nhr_reduce_scatter(const GenParams& p) {
  Emitter e = make_emitter("nhr", p);
  Comm world{0, 1, p.ranks, 0};
  std::vector<u32> sigma = identity(p.ranks);
  return reduce_scatter_frame(e, p, [&](u32 r, Buf in, Buf out, Buf scr, const Parts& blocks) {
    nhr_reduce_scatter(At{e, world, r, 0}, in, out, scr, NhrSlices{blocks, sigma}, 0, !p.non_inline,
                       p.nhr_staging_bug);
  });
}

}  // namespace cc::gen
