#include "gen/links.h"

namespace cc::gen {

void barrier(const At& at, u32 a, u32 b) {
  at.rec(a, Notify::READY);
  at.wt(b, Notify::READY);
  at.rec(b, Notify::FIN);
  at.wt(a, Notify::FIN);
}

void local_record(Emitter& e, u32 r, u32 stream, Notify t, u32 k) { e.record(r, stream, r, t, k); }
void local_wait(Emitter& e, u32 r, u32 stream, Notify t, u32 k) { e.wait(r, stream, r, t, k); }

void presync(Emitter& e, u32 r, u32 m) {
  for (u32 k = 1; k <= m; ++k) local_record(e, r, 0, Notify::M2S, k);
  for (u32 k = 1; k <= m; ++k) local_wait(e, r, k, Notify::M2S, k);
}

void postsync(Emitter& e, u32 r, u32 m) {
  for (u32 k = 1; k <= m; ++k) local_record(e, r, k, Notify::S2M, k);
  for (u32 k = 1; k <= m; ++k) local_wait(e, r, 0, Notify::S2M, k);
}

}  // namespace cc::gen
