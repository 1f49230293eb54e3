// What the CCU expansion (ccu.md, src/ccu/) needs from an HCCL VM database,
// filled into Trace::ccu for an op group with CCU_GRAPH records: the SQEs
// (one per record, filled by TaskTranslator), the instruction images of
// `ccuInstrRes`, the channels of `ccuChannels`, the members' buffer base
// addresses, the instruction set and the die register bases.
#pragma once

#include <string>
#include <vector>

#include "model/result.h"
#include "io/hcclvm/rows.h"
#include "io/hcclvm/tasks.h"

namespace cc::hcclvm {

// The CCU tables, read once per database on first need.
struct CcuTables {
  bool read = false;
  std::vector<CcuImageRow> images;
  std::vector<i64> skipped;  // image rows the reference skips too
  std::vector<CcuChannelRow> channels;
};

// The die register bases HCCL VM's simulator uses (ccu.md §15.4): a
// database written by HCCL VM has these.
inline constexpr u64 kVmDieBase[2] = {0x123123123ull, 0x456456456ull};

// Fills `trace.ccu` when it holds SQEs; exit-2 text on a table that does
// not decode, else "".
Status fill_ccu(Db& db, CcuTables& tables, const OpGroup& group, const Blocks& blocks, Trace& trace,
                     std::vector<Finding>& findings);

}  // namespace cc::hcclvm
