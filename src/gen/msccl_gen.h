// `collcheck gen --format msccl`: reference MSCCL algorithms written as
// programs (msccl/program.h), for any GPU count: ring and all-pairs
// AllReduce, AllGather and AllToAll. They use only the plain step types
// (s, r, cpy, re, nop), which both runtimes accept, and declare every call
// mode in which they are correct.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "model/msccl_program.h"

namespace cc::gen {

struct MscclAlgorithm {
  std::string_view name;     // "ring", "all-pairs"
  std::vector<OpType> ops;   // the collectives it writes
  std::string_view summary;
};

const std::vector<MscclAlgorithm>& msccl_algorithms();

// `algo` is ring or all-pairs (also allpairs, all_pairs); `op` AllReduce,
// AllGather or AllToAll; 1 <= ranks <= msccl::kMaxGpus.
Result<msccl::Program> generate_msccl(std::string_view algo, OpType op, u32 ranks);

// Fills the remote-end fields (a send's dstbuf/dstoff, a receive's
// srcbuf/srcoff, msccl.md §2.4) from the paired step, as msccl-tools does.
void fill_remote_fields(msccl::Program& p);

}  // namespace cc::gen
