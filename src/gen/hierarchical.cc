#include "gen/hierarchical.h"

#include "gen/frame.h"
#include "gen/hd.h"
#include "gen/mesh.h"
#include "gen/nhr.h"
#include "gen/ring.h"

namespace cc::gen {

Result<Trace> gen_hierarchical(const GenParams& p, InterServer level1) {
  static constexpr const char* kNames[] = {"hierarchical", "hierarchical-nhr", "hierarchical-hd"};
  Emitter e = make_emitter(kNames[static_cast<int>(level1)], p);
  u32 servers = p.servers, per = p.ranks / servers;
  bool inl = !p.non_inline;
  return allreduce_frame(e, p, [&](u32 g, Buf in, Buf out, u64 bytes) {
    u32 s = g / per, l = g % per;
    Comm server{s * per, 1, per, 0};
    Comm across{l, per, servers, kChInterServer};
    Parts segs = even_split(bytes, per);
    const Part& seg = segs[l];
    mesh_reduce_scatter(e, server, l, in, out, segs, inl);
    At at{e, across, s, 0};
    Buf in_seg = in.at(seg.off), out_seg = out.at(seg.off);
    if (servers == 1) at.copy(at.mine(in_seg, {0, seg.len}), at.mine(out_seg, {0, seg.len}));
    else if (level1 == InterServer::Ring) ring_allreduce(at, in_seg, out_seg, seg.len, inl);
    else if (level1 == InterServer::Nhr) nhr_allreduce(at, in_seg, out_seg, seg.len, inl);
    else hd_allreduce(at, in_seg, out_seg, seg.len, inl);
    mesh_allgather(e, server, l, out, out, segs, 0);
  });
}

}  // namespace cc::gen
