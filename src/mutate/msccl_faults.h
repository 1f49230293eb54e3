// Faults of MSCCL algorithms for `collcheck mutate` on an MSCCL file: where
// each kind applies in a program and how it changes it. The mutant is
// again an MSCCL program, written as XML and checked from that file, so
// every mutant exercises the reader, the execution model and the mapping.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "model/msccl_program.h"

namespace cc::mutate {

enum class MscclFault : u8 { DropDep, SwapSends, ShortenCount, WrongOffset, DropRecv };

struct MscclFaultInfo {
  MscclFault kind;
  std::string_view name;        // as --kind takes it
  std::string_view what;        // one line for --list
  std::vector<u16> codes;       // a caught mutant carries one of these
  std::string_view equivalent;  // why a mutant of this kind can be harmless
};

const std::vector<MscclFaultInfo>& msccl_faults();
const MscclFaultInfo& msccl_fault_info(MscclFault k);
const MscclFaultInfo* find_msccl_fault(std::string_view name);

// A place: a step (gpu index, index in Gpu::tbs, index in Tb::steps) and,
// for a swap, the second step of the same thread block.
struct MscclSite {
  u32 gpu = 0, tb = 0, step = 0;
  u32 other = kNone;
};

std::vector<MscclSite> msccl_sites(const msccl::Program& p, MscclFault k);

struct MscclApplied {
  msccl::Program program;
  std::string what;  // e.g. "dropped the dependency of 1/1/0 s (tb 0 level 0)"
};
Result<MscclApplied> apply_msccl_fault(const msccl::Program& p, MscclFault k, const MscclSite& s);

}  // namespace cc::mutate
