#include "synthetic_ring.h"

#include "model/builder.h"

namespace cc::bench {

Trace synthetic_ring_allreduce(u32 n, u64 chunk_elems) {
  Op op;
  op.type = OpType::AllReduce;
  op.ranks = n;
  op.data_type = DataType::FP32;
  op.count = chunk_elems * n;
  op.reduce_op = ReduceOp::SUM;
  op.has_reduce_op = true;
  TraceBuilder b(op, "synthetic ring AllReduce");
  u64 c = chunk_elems * 4;  // bytes per chunk
  enum { READY = 0, FIN = 1 };
  auto id = [](u32 step, u32 type) { return step * 4 + type; };
  for (u32 r = 0; r < n; ++r) {
    u32 prev = (r + n - 1) % n, next = (r + 1) % n;
    b.copy(r, 0, b.slice(r, "INPUT", 0, c * n), b.slice(r, "OUTPUT", 0, c * n), Link::LOCAL);
    if (n == 1) continue;
    u32 step = 0;
    for (u32 s = 0; s + 1 < n; ++s, ++step) {  // reduce-scatter
      u32 recv = (r + 2 * n - s - 1) % n;
      b.record(r, 0, prev, id(step, READY));
      b.wait(r, 0, next, id(step, READY));
      b.record(r, 0, next, id(step, FIN));
      b.wait(r, 0, prev, id(step, FIN));
      b.reduce(r, 0, {b.slice(prev, "OUTPUT", recv * c, c)}, b.slice(r, "OUTPUT", recv * c, c), Link::SDMA);
    }
    for (u32 s = 0; s + 1 < n; ++s, ++step) {  // all-gather
      u32 recv = (r + 2 * n - s) % n;
      b.record(r, 0, prev, id(step, READY));
      b.wait(r, 0, next, id(step, READY));
      b.record(r, 0, next, id(step, FIN));
      b.wait(r, 0, prev, id(step, FIN));
      b.copy(r, 0, b.slice(prev, "OUTPUT", recv * c, c), b.slice(r, "OUTPUT", recv * c, c), Link::SDMA);
    }
    // Nobody leaves while its successor may still read its OUTPUT.
    b.record(r, 0, prev, id(step, READY));
    b.wait(r, 0, next, id(step, READY));
  }
  return b.finish();
}

}  // namespace cc::bench
