// Communicators and the link primitives of algorithms.md §1.5–§1.6 that the
// templates share.
#pragma once

#include "gen/emitter.h"

namespace cc::gen {

// A (sub-)communicator: members 0 … size−1 are the global ranks base,
// base+stride, …; its links use notify channel `ch`. A whole operator is
// {0, 1, n, 0}; a server of §16 is {s·L, 1, L, ·}, a level-1 group {l, L, S, 32}.
struct Comm {
  u32 base = 0, stride = 1, size = 1;
  u32 ch = 0;
  u32 rank(u32 member) const { return base + stride * member; }
  u32 rank_at(i64 member) const { return rank(md(member, size)); }
};

// Emission context of one member of a communicator: its global rank and the
// stream it issues on.
struct At {
  Emitter& e;
  const Comm& c;
  u32 me;      // member index
  u32 stream;  // stream id
  u32 rank() const { return c.rank(me); }
  void rec(u32 member, Notify t) const { e.record(rank(), stream, c.rank(member), t, c.ch); }
  void wt(u32 member, Notify t) const { e.wait(rank(), stream, c.rank(member), t, c.ch); }
  void copy(const Slice& src, const Slice& dst) const { e.copy(rank(), stream, src, dst); }
  void red(const Slice& src, const Slice& dst) const { e.reduce(rank(), stream, src, dst); }
  // Slice of `b` on member `m` / on this member.
  Slice on(u32 m, Buf b, Part p) const { return e.at(c.rank(m), b, p); }
  Slice mine(Buf b, Part p) const { return e.at(rank(), b, p); }
};

// BARRIER(a, b) = REC(a,READY) WT(b,READY) REC(b,FIN) WT(a,FIN); BARRIER(p)
// and the SDMA data-received ack DRA(p) are BARRIER(p, p).
void barrier(const At& at, u32 a, u32 b);
inline void dra(const At& at, u32 p) { barrier(at, p, p); }

// Local syncs of rank `r` on local channel k (§1.9): the main stream posts
// M2S to slave k, the slave posts S2M back.
void local_record(Emitter& e, u32 r, u32 stream, Notify t, u32 k);
void local_wait(Emitter& e, u32 r, u32 stream, Notify t, u32 k);
// PRESYNC(1 … m) and POSTSYNC(1 … m) of §1.6: slave k is stream k.
void presync(Emitter& e, u32 r, u32 m);
void postsync(Emitter& e, u32 r, u32 m);

}  // namespace cc::gen
