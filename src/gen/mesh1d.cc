#include "gen/mesh1d.h"

#include <fmt/format.h>

#include "gen/frame.h"
#include "gen/links.h"

namespace cc::gen {

namespace {

// READ_X / WRITE_X of §1.6 on one stream: ACK both ways, the copy, DATA both ways.
void handshake_x(const At& at, u32 p, const Slice& src, const Slice& dst) {
  at.rec(p, Notify::ACK);
  at.wt(p, Notify::ACK);
  at.copy(src, dst);
  at.rec(p, Notify::DATA);
  at.wt(p, Notify::DATA);
}

// The sole executor's pieces: c a multiple of 128 with mult·c ≤ C [MODEL];
// graph mode (AllGather only) runs once.
Result<std::vector<Iter>> pieces(const GenParams& p, u64 total, u32 mult, bool once) {
  if (once) {
    std::vector<Iter> one;
    if (total) one.push_back({0, total});
    return one;
  }
  return iterations(total, p.ccl_bytes / mult / kSliceAlign * kSliceAlign, "a mesh1D template");
}

}  // namespace

Result<Trace> gen_mesh1d_allgather(const GenParams& p) {
  Emitter e = make_emitter("mesh1d", p);
  u32 n = p.ranks;
  u64 d = p.count * size_of(p.dtype);
  Comm world{0, 1, n, 0};
  auto its = pieces(p, d, n, p.graph);
  if (!its) return its.error();
  for (const Iter& it : *its)
    for (u32 r = 0; r < n; ++r) {
      u64 c = it.cur;
      e.copy(r, 0, e.at(r, e.input(), it.off, c), e.at(r, e.output(), r * d + it.off, c));
      if (!p.graph) e.copy(r, 0, e.at(r, e.input(), it.off, c), e.at(r, e.ccl(), r * c, c));
      presync(e, r, n - 2);
      for (u32 k = 1; k < n; ++k) {
        u32 q = md(i64{r} + k, n);
        At at{e, world, r, k - 1};
        Slice src = p.graph ? at.on(q, e.output(), {q * d + it.off, c}) : at.on(q, e.ccl(), {q * c, c});
        handshake_x(at, q, src, at.mine(e.output(), {q * d + it.off, c}));
      }
      postsync(e, r, n - 2);
    }
  return e.finish();
}

Result<Trace> gen_mesh1d_reduce_scatter(const GenParams& p) {
  Emitter e = make_emitter("mesh1d", p);
  u32 n = p.ranks;
  u64 d = p.count * size_of(p.dtype);
  Comm world{0, 1, n, 0};
  auto its = pieces(p, d, n, false);
  if (!its) return its.error();
  for (const Iter& it : *its)
    for (u32 r = 0; r < n; ++r) {
      u64 c = it.cur;
      presync(e, r, n - 1);
      for (u32 k = 1; k < n; ++k) {
        u32 q = md(i64{r} + k, n);
        At at{e, world, r, k};
        handshake_x(at, q, at.mine(e.input(), {q * d + it.off, c}), at.on(q, e.ccl(), {r * c, c}));
      }
      postsync(e, r, n - 1);
      Slice res = e.at(r, e.output(), it.off, c);
      e.copy(r, 0, e.at(r, e.input(), r * d + it.off, c), res);
      for (u32 q = 0; q < n; ++q)
        if (q != r) e.reduce(r, 0, e.at(r, e.ccl(), q * c, c), res);
    }
  return e.finish();
}

Result<Trace> gen_mesh1d_allreduce(const GenParams& p) {
  Emitter e = make_emitter("mesh1d", p);
  u32 n = p.ranks;
  u64 u = size_of(p.dtype), d = p.count * u;
  Comm world{0, 1, n, 0};
  auto its = pieces(p, d, 2, false);
  if (!its) return its.error();
  for (const Iter& it : *its) {
    u64 k = it.cur / u, per = ceil_div(k, n);
    auto len = [&](u32 i) { return u * std::min(per, k > i * per ? k - i * per : 0); };
    auto off = [&](u32 i) { return it.off + u64{i} * per * u; };
    if (n * per * u > p.ccl_bytes)
      return Error{fmt::format("--ccl-bytes {} is too small for the two-shot slots of {} ranks",
                               p.ccl_bytes, n)};
    for (u32 r = 0; r < n; ++r) {
      u64 l = len(r);
      auto skip = [&](u32 i) { return len(i) == 0 && l == 0; };
      presync(e, r, n - 1);
      for (u32 i = 0; i < n; ++i) {
        At at{e, world, r, i};
        if (i == r) at.copy(at.mine(e.input(), {off(r), l}), at.mine(e.ccl(), {r * l, l}));
        else if (!skip(i))
          handshake_x(at, i, at.mine(e.input(), {off(i), len(i)}), at.on(i, e.ccl(), {r * len(i), len(i)}));
      }
      postsync(e, r, n - 1);
      for (u32 i = 1; i < n; ++i) e.reduce(r, 0, e.at(r, e.ccl(), i * l, l), e.at(r, e.ccl(), 0, l));
      presync(e, r, n - 1);
      for (u32 i = 0; i < n; ++i) {
        At at{e, world, r, i};
        if (i == r) at.copy(at.mine(e.ccl(), {0, l}), at.mine(e.output(), {off(r), l}));
        else if (!skip(i))
          handshake_x(at, i, at.on(i, e.ccl(), {0, len(i)}), at.mine(e.output(), {off(i), len(i)}));
      }
      postsync(e, r, n - 1);
    }
  }
  return e.finish();
}

}  // namespace cc::gen
