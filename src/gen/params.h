// The parameters of `collcheck gen` (cli.md) and what every generator
// derives from them: the operator and the emitter.
#pragma once

#include <string>
#include <vector>

#include "gen/emitter.h"

namespace cc::gen {

inline constexpr u64 kDefaultCclBytes = u64{200} << 20;  // HCCL's 200 MiB

struct GenParams {
  u32 ranks = 0;
  u64 count = 0;  // elements per rank, as the operator defines them
  DataType dtype = DataType::FP32;
  OpType op = OpType::AllReduce;
  ReduceOp reduce_op = ReduceOp::SUM;
  u32 root = 0;
  u64 seed = 1;
  bool graph = false;  // --mode graph
  u64 ccl_bytes = kDefaultCclBytes;
  bool physical_notify = false;
  bool fold_ccl = false;
  u32 servers = 0;          // hierarchical: S (0: the generator's default)
  bool non_inline = false;  // [VAR] reducers stage peer data before reducing
  // The HCCL defect of algorithms.md §17 ("faults seen in real HCCL code"):
  // NHR ReduceScatter, non-inline, last step with IN ≠ OUT stages the peer
  // data but reduces only the local IN into OUT.
  bool nhr_staging_bug = false;
  // AllToAllV, BatchSendRecv: n×n elements, [i·n+j] = rank i sends to rank j.
  // Empty: drawn from `seed` (AllToAllV, BatchSendRecv) or `count` (AllToAll).
  std::vector<u64> send_counts;
};

// The operator a generator records: type, ranks, data type, count, reduce
// op, root, AllToAllV matrix, send/receive items, in-place Broadcast.
Op make_op(const GenParams& p);

// The matrix the operator uses: the given one, `count` everywhere
// (AllToAll), or drawn from the seed (entries 0 … 2·count, some zero).
std::vector<u64> send_matrix(const GenParams& p);

// Header name: algorithm, operator and the options that shape the schedule.
std::string schedule_name(const std::string& algo, const GenParams& p);

// An emitter for `p` with the operator's header set.
Emitter make_emitter(const std::string& algo, const GenParams& p);

}  // namespace cc::gen
