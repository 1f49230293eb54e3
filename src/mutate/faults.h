// The fault kinds of `collcheck mutate` (algorithms.md §17): where each can
// be applied in a trace and how it changes the trace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "model/trace.h"

namespace cc::mutate {

enum class FaultKind : u8 {
  DropWait,
  DropRecord,
  SwapNotify,
  RetargetRecord,
  ShiftDst,
  ShiftSrc,
  WrongPeer,
  ShortenCopy,
  DropFinalCopy,
  WrongReduceOp,
  DuplicateReduce,
  DropHandshake,
  MoveToStream,
  DropSlaveWait,
  DropSlaveRecord,
  DropSlaveRecordAndWait,
  GrowSlice,
  OverlapSlice,
  EarlyRecord,
  WaitBeforeRecord,
  // AIV kernels (aiv.md; mutate/aiv_faults.cc): one task of a snapshot.
  AivDropWaitFlag,
  AivWrongFlagValue,
  AivDropBarrierMember,
  AivDropSyncAllMember,
  AivWrongFlagOffset,
  AivWrongSource,
};

struct FaultInfo {
  FaultKind kind;
  std::string_view name;        // as --kind takes it
  std::string_view table;       // rows of the §17 table it generalises
  std::string_view what;        // one line for --list
  std::vector<u16> codes;       // a mutant that is caught carries one of these
  std::string_view equivalent;  // why a mutant of this kind can be harmless
};

const std::vector<FaultInfo>& fault_kinds();
const FaultInfo& fault_info(FaultKind k);
const FaultInfo* find_fault(std::string_view name);

// A place to apply a fault: the task it changes, a second task (the other
// RECORD of a swap, the WAIT paired with a RECORD) and a kind-specific
// argument (a rank, a stream position).
struct Site {
  u32 task = kNone;
  u32 other = kNone;
  u32 arg = 0;
};

// Every site of the kind in `t`, in task order.
std::vector<Site> fault_sites(const Trace& t, FaultKind k);

struct Applied {
  Trace trace;
  std::string what;  // what was changed, e.g. "deleted 1/0/5 WAIT(0→1 #1)"
};
Result<Applied> apply_fault(const Trace& t, FaultKind k, const Site& s);

}  // namespace cc::mutate
