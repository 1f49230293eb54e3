#include "random_trace.h"

#include <deque>

#include "model/builder.h"

namespace cc::test {

Trace random_trace(std::mt19937_64& rng, const RandomTraceShape& sh) {
  auto pick = [&](u64 n) { return static_cast<u32>(rng() % n); };
  auto chance = [&](double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  Op op;
  op.type = OpType::AllGather;
  op.ranks = 1 + pick(sh.max_ranks);
  op.data_type = DataType::INT8;
  op.count = sh.buffer_bytes;
  TraceBuilder b(op);
  b.declare("CCL", sh.buffer_bytes);
  const char* bufs[] = {"INPUT", "OUTPUT", "CCL"};
  struct S {
    u32 rank, id, left;
  };
  std::vector<S> streams;
  for (u32 r = 0; r < op.ranks; ++r) {
    u32 ns = 1 + pick(sh.max_streams);
    for (u32 s = 0; s < ns; ++s) streams.push_back({r, s, 2 + pick(sh.max_tasks)});
  }
  // A random slice of buffer `bi` (0 INPUT, 1 OUTPUT, 2 CCL; 3 = any).
  auto slice = [&](u32 bi = 3) {
    u32 r = pick(op.ranks);
    const char* bn = bufs[bi < 3 ? bi : pick(3)];
    u64 size = std::string(bn) == "OUTPUT" ? sh.buffer_bytes * op.ranks : sh.buffer_bytes;
    u64 len = pick(17);
    u64 off = pick(size - len + 1);
    return b.slice(r, bn, off, len);
  };
  auto copy = [&](u32 rank, u32 stream) {
    Slice src = sh.reduce_layout ? slice(pick(4) ? 0 : 2) : slice();
    Slice dst = sh.reduce_layout ? slice(1) : slice();
    dst.len = src.len;
    u64 size = b.trace().buffers.name(dst.buf) == "OUTPUT" ? sh.buffer_bytes * op.ranks : sh.buffer_bytes;
    if (dst.offset + dst.len > size) dst.offset = size - dst.len;
    return b.copy(rank, stream, src, dst);
  };
  auto reduce = [&](u32 rank, u32 stream) {
    Slice dst = sh.reduce_layout ? slice(2) : slice();
    std::vector<Slice> srcs;
    for (u32 k = 0, m = 1 + pick(2); k < m; ++k) srcs.push_back(sh.reduce_layout ? slice(0) : slice());
    if (chance(sh.sdma_reduce_share)) {
      // Mostly one class (SUM, FP16), so that atomic pairs are common.
      bool other = pick(3) == 0;
      return b.reduce_with(rank, stream, srcs, dst, other && pick(2) ? ReduceOp::MAX : ReduceOp::SUM,
                           other && pick(2) ? DataType::INT8 : DataType::FP16,
                           pick(4) ? Link::SDMA : Link::RDMA);
    }
    return b.reduce(rank, stream, srcs, dst);
  };
  // A CCU-style node on stream 1000 of a random rank: unchained, with
  // explicit predecessors made before it (so no edge closes a cycle).
  std::vector<u32> unchained;
  auto add_unchained = [&] {
    u32 rank = pick(op.ranks);
    u32 id;
    switch (pick(5)) {
      case 0: id = b.record(rank, 1000, pick(op.ranks), 0); break;
      case 1: id = b.wait(rank, 1000, pick(op.ranks), 0); break;
      case 2: id = reduce(rank, 1000); break;
      default: id = copy(rank, 1000); break;
    }
    Task& k = b.trace().tasks[id];
    k.flags |= kTaskUnchained | kTaskCcu | (is_sync_task(k.type) ? kTaskPrematched : 0);
    if (chance(sh.blocked_share)) k.flags |= kTaskBlocked;
    for (u32 p = 0, np = id ? 1 + pick(2) : 0; p < np; ++p) b.trace().extra_edges.emplace_back(pick(id), id);
    unchained.push_back(id);
  };
  // Pending WAITs: (stream index, record rank, notify) to emit later.
  std::deque<std::tuple<u32, u32, u32>> pending;
  // One host task on stream si.
  auto host_task = [&](u32 si) {
    S& s = streams[si];
    // Emit a pending WAIT of this stream first, sometimes.
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (std::get<0>(*it) == si && rng() % 2) {
        b.wait(s.rank, s.id, std::get<1>(*it), std::get<2>(*it));
        pending.erase(it);
        return;
      }
    }
    double x = std::uniform_real_distribution<double>(0, 1)(rng);
    if (x < sh.sync_share && streams.size() > 1) {
      u32 wi = pick(streams.size());
      if (wi == si) wi = (wi + 1) % streams.size();
      u32 nid = pick(sh.notify_ids);
      b.record(s.rank, s.id, streams[wi].rank, nid);
      pending.emplace_back(wi, s.rank, nid);
      return;
    }
    if (chance(sh.reduce_share)) {
      reduce(s.rank, s.id);
      return;
    }
    switch (pick(4)) {
      case 0:
      case 1: copy(s.rank, s.id); break;
      case 2: reduce(s.rank, s.id); break;
      default: {
        std::vector<std::pair<Slice, Slice>> pairs;
        for (u32 k = 0, m = 1 + pick(3); k < m; ++k)
          pairs.emplace_back(sh.reduce_layout ? slice(pick(4) ? 0 : 2) : slice(), sh.reduce_layout ? slice(1) : slice());
        b.batch_copy(s.rank, s.id, pairs);
        break;
      }
    }
  };
  for (;;) {
    std::vector<u32> live;
    for (u32 i = 0; i < streams.size(); ++i)
      if (streams[i].left) live.push_back(i);
    if (live.empty()) break;
    if (chance(sh.unchained_share)) {
      add_unchained();
      continue;
    }
    u32 si = live[pick(live.size())];
    --streams[si].left;
    u32 id = b.size();
    host_task(si);
    if (!unchained.empty() && chance(sh.explicit_share))
      b.trace().extra_edges.emplace_back(unchained[pick(unchained.size())], id);
  }
  // WAITs still pending go at the end of their streams.
  for (auto [si, rr, nid] : pending) b.wait(streams[si].rank, streams[si].id, rr, nid);
  return b.finish();
}

}  // namespace cc::test
