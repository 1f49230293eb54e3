#include "gen/pairwise.h"

#include "gen/links.h"
#include "gen/slicing.h"

namespace cc::gen {

namespace {

// The matrix in bytes with its displacements: sd(r, j) into r's INPUT,
// rd(r, i) into r's OUTPUT (contiguous, as the semantic check assumes).
struct Layout {
  u32 n;
  std::vector<u64> bytes, sd, rd;  // all n×n, row-major
  Layout(const std::vector<u64>& m, u32 n_, u64 u) : n(n_), bytes(m.size()), sd(m.size()), rd(m.size()) {
    for (u64 i = 0; i < m.size(); ++i) bytes[i] = m[i] * u;
    for (u32 r = 0; r < n; ++r) {
      u64 s = 0, q = 0;
      for (u32 k = 0; k < n; ++k) {
        sd[idx(r, k)] = s;
        s += b(r, k);
        rd[idx(r, k)] = q;  // rd_r(k): where what k sends to r starts
        q += b(k, r);
      }
    }
  }
  u64 idx(u32 i, u32 j) const { return u64{i} * n + j; }
  u64 b(u32 from, u32 to) const { return bytes[idx(from, to)]; }
};

// Step i of the op-base form on rank r (orders 1–5 of §9 per chunk).
void opbase_step(Emitter& e, const Layout& l, const At& at, u32 i, Buf in_ccl, Buf out_ccl) {
  u32 n = l.n, r = at.me, nx = md(i64{r} + i, n), pv = md(i64{r} - i, n);
  u64 c = e.ccl_bytes(), sb = l.b(r, nx), rb = l.b(pv, r);
  u64 chunks = std::max(ceil_div(sb, c), ceil_div(rb, c));
  for (u64 k = 0; k < chunks; ++k) {
    u64 s = k * c < sb ? std::min(c, sb - k * c) : 0;
    u64 q = k * c < rb ? std::min(c, rb - k * c) : 0;
    if (q > 0) at.rec(pv, Notify::READY);
    if (s > 0) {
      at.wt(nx, Notify::READY);
      at.copy(at.mine(e.input(), {l.sd[l.idx(r, nx)] + k * c, s}), at.mine(in_ccl, {0, s}));
      at.rec(nx, Notify::FIN);
    }
    if (q > 0) {
      at.wt(pv, Notify::FIN);
      at.copy(at.on(pv, in_ccl, {0, q}), at.mine(out_ccl, {0, q}));
      at.copy(at.mine(out_ccl, {0, q}), at.mine(e.output(), {l.rd[l.idx(r, pv)] + k * c, q}));
      at.rec(pv, Notify::READY);
    }
    if (s > 0) {
      at.wt(nx, Notify::READY);
      at.rec(nx, Notify::FIN);
    }
    if (q > 0) at.wt(pv, Notify::FIN);
  }
}

void graph_handshake(const At& at, u32 pv, u32 nx) {
  at.rec(pv, Notify::READY);
  at.wt(nx, Notify::READY);
  at.rec(nx, Notify::FIN);
  at.wt(pv, Notify::FIN);
}

}  // namespace

Result<Trace> gen_pairwise(const GenParams& p) {
  Emitter e = make_emitter("pairwise", p);
  u32 n = p.ranks;
  u64 u = size_of(p.dtype);
  std::vector<u64> m = send_matrix(p);
  if (m.size() != u64{n} * n) return Error{"--send-counts must be an n×n matrix"};
  Layout l(m, n, u);
  Comm world{0, 1, n, 0};
  Buf in_ccl = p.graph ? Buf{} : e.input_ccl(), out_ccl = p.graph ? Buf{} : e.output_ccl();
  if (!p.graph && e.ccl_bytes() == 0) return Error{"--ccl-bytes must be positive"};
  for (u32 r = 0; r < n; ++r) {
    At at{e, world, r, 0};
    at.copy(at.mine(e.input(), {l.sd[l.idx(r, r)], l.b(r, r)}),
            at.mine(e.output(), {l.rd[l.idx(r, r)], l.b(r, r)}));
    for (u32 i = 1; i < n; ++i) {
      if (!p.graph) {
        opbase_step(e, l, at, i, in_ccl, out_ccl);
        continue;
      }
      u32 nx = md(i64{r} + i, n), pv = md(i64{r} - i, n);
      graph_handshake(at, pv, nx);
      at.copy(at.on(pv, e.input(), {l.sd[l.idx(pv, r)], l.b(pv, r)}),
              at.mine(e.output(), {l.rd[l.idx(r, pv)], l.b(pv, r)}));
      graph_handshake(at, pv, nx);
    }
  }
  return e.finish();
}

}  // namespace cc::gen
