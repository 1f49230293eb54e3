#include "gen/hd.h"

#include "gen/frame.h"
#include "gen/slicing.h"

namespace cc::gen {

namespace {

// Folding: B = 2^⌊log2 n⌋ block members, the odd ranks below P1 = 2(n−B)
// sit out the power-of-two phase.
struct Fold {
  u32 n, B, P1;
  explicit Fold(u32 n_) : n(n_), B(1), P1(0) {
    while (B * 2 <= n) B *= 2;
    P1 = 2 * (n - B);
  }
  bool member(u32 r) const { return r >= P1 || r % 2 == 0; }
  u32 block(u32 r) const { return r < P1 ? r / 2 : r - P1 / 2; }
  u32 rank(u32 b) const { return b < P1 / 2 ? 2 * b : b + P1 / 2; }
};

// REC READY, WT READY, REC FIN, WT FIN: the same four tasks as BARRIER(p).
void handshake(const At& at, u32 p) { barrier(at, p, p); }

// Receive-reduce of p.IN[x] into IN[x] with the HD link's data-received ack.
void reduce_from(const At& at, u32 p, Buf in, Buf out, Part x, bool inline_reduce) {
  if (inline_reduce) {
    at.red(at.on(p, in, x), at.mine(in, x));
    dra(at, p);
  } else {
    at.copy(at.on(p, in, x), at.mine(out, x));
    dra(at, p);
    at.red(at.mine(out, x), at.mine(in, x));
  }
}

}  // namespace

void hd_allreduce(const At& at, Buf in, Buf out, u64 d, bool inl) {
  Fold f(at.c.size);
  u32 r = at.me;
  Part all{0, d};
  if (r < f.P1) {  // 1. reduce in part one
    u32 q = r % 2 == 0 ? r + 1 : r - 1;
    handshake(at, q);
    if (r % 2 == 0) reduce_from(at, q, in, out, all, inl);
    else dra(at, q);
  }
  if (f.member(r)) {
    u32 s = 0;
    while ((1u << s) < f.B) ++s;
    u32 b = f.block(r);
    Parts sl = clipped_pieces(d, round_up(ceil_div(d, f.B), kSliceAlign), f.B);
    for (u32 k = 0; k < s; ++k) {  // 2. reduce-scatter in the block
      u32 mask = 1u << (s - 1 - k), p = f.rank(b ^ mask);
      handshake(at, p);
      reduce_from(at, p, in, out, part_range(sl, b & ~(mask - 1), mask), inl);
    }
    at.copy(at.mine(in, sl[b]), at.mine(out, sl[b]));
    for (u32 k = 0; k < s; ++k) {  // 3. all-gather in the block
      u32 mask = 1u << k, p = f.rank(b ^ mask);
      Part y = part_range(sl, (b ^ mask) & ~(mask - 1), mask);
      handshake(at, p);
      at.copy(at.on(p, out, y), at.mine(out, y));
      dra(at, p);
    }
  }
  if (r < f.P1) {  // 4. gather in part one
    u32 q = r % 2 == 0 ? r + 1 : r - 1;
    handshake(at, q);
    if (r % 2 == 1) at.copy(at.on(q, out, all), at.mine(out, all));
    dra(at, q);
  }
}

Result<Trace> gen_hd_allreduce(const GenParams& p) {
  Emitter e = make_emitter("hd", p);
  Comm world{0, 1, p.ranks, 0};
  return allreduce_frame(e, p, [&](u32 r, Buf in, Buf out, u64 bytes) {
    hd_allreduce(At{e, world, r, 0}, in, out, bytes, !p.non_inline);
  });
}

}  // namespace cc::gen
