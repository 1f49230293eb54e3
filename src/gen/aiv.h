// AIV kernels in the style of aiv.md §8 (`collcheck gen aiv-allgather`,
// `aiv-allreduce`): one launch per rank on stream 0, every block with its
// three pipes, data staged through the block's unified buffer in chunks of
// two double-buffered slots (pipe events MTE2⇄MTE3), a SyncAll before the
// peers are told "ready", cross-rank READY/DONE flag handshakes in AIV_COMM
// cells spread over the blocks, a PIPE_ALL barrier, and the flag cells
// reset at the end. AllGather: every rank reads each peer's CCL into its
// OUTPUT slot (peers spread over the blocks); AllReduce: every block reduces
// its part of every peer's CCL into OUTPUT with atomic-add writes.
#pragma once

#include <string_view>

#include "model/result.h"
#include "model/trace.h"

namespace cc::gen {

struct AivGenParams {
  OpType op = OpType::AllGather;  // AllGather or AllReduce
  u32 ranks = 2;
  u32 blocks = 4;
  u64 count = 65536;
  DataType dtype = DataType::FP32;
  ReduceOp reduce_op = ReduceOp::SUM;
  u64 ub_bytes = 194560;        // ubBufferSize (the VM's 190 KiB)
  u64 comm_bytes = 68157440;    // aivCommInfoSize (the VM's 65 MiB)
};

// The AIV generators `gen` knows: "aiv-allgather", "aiv-allreduce".
struct AivAlgorithm {
  std::string_view name;
  OpType op;
  std::string_view summary;
};
const std::vector<AivAlgorithm>& aiv_algorithms();
const AivAlgorithm* find_aiv_algorithm(std::string_view name);

// The trace (format version 2 with AIV data, not expanded).
Result<Trace> generate_aiv(const AivGenParams& p);

}  // namespace cc::gen
