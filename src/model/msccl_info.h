// What a trace mapped from an MSCCL algorithm file (msccl.md) keeps of its
// origin, so that reports name MSCCL positions ("gpu/tb/s (file:line)",
// "cpy i[0] -> o[1]") instead of the trace's own stream positions. Plain
// data; the mapping is src/msccl/. Informational: no check reads it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/types.h"

namespace cc {

// The part of an MSCCL step a task stands for.
enum class MscclRole : u8 {
  None,       // not from an MSCCL step
  Data,       // the step's reads and writes (or an empty copy when it moves nothing)
  DepWait,    // waits for a dependency's publisher (WAIT)
  DepPost,    // the publisher's side of one dependency edge (RECORD)
  PopWait,    // waits for the message this step receives (WAIT)
  PushPost,   // hands the message this step sent to its receiver (RECORD)
  Launch,     // kernel start on thread block 0: lets another block start (RECORD / its WAIT)
  Exit,       // kernel end: a block has finished (RECORD / its WAIT on thread block 0)
  InPlaceIn,  // in-place mode: the user's data is already where the aliased buffer is
  InPlaceOut, // in-place mode: the result is where the aliased buffer is
};

struct MscclStepInfo {
  u32 gpu = 0, tb = 0;  // ids as written
  std::int32_t s = 0;   // the step's s attribute (a fused chain: its first step)
  u32 line = 0;
  std::string text;     // "cpy i[0] -> o[1]"
};

// A thread block: one stream of the trace (stream id = tb id), and the
// peers its lane is labelled with in DOT and HTML.
struct MscclTbInfo {
  u32 gpu = 0, tb = 0;
  std::int32_t send = -1, recv = -1, chan = 0;
};

struct MscclInfo {
  // Steps (transmissions after folding) by index.
  std::vector<MscclStepInfo> steps;
  // By task id: the step a task belongs to (kNone: none) and its role; for
  // sync tasks `peer_step` is the step on the other end of the edge.
  std::vector<u32> task_step;
  std::vector<u32> task_peer_step;
  std::vector<MscclRole> task_role;
  // Thread blocks sorted by (gpu, tb).
  std::vector<MscclTbInfo> tbs;
  // `collcheck stats`: steps by type as written (nops included).
  std::vector<std::pair<std::string, u64>> step_counts;
  std::string mode;  // "inplace" / "outofplace"
  u64 chunk_bytes = 0;  // C
  u64 slice_bytes = 0;  // B
  u32 iterations = 0;   // L

  bool present() const { return !task_step.empty(); }
  bool has(u32 task) const { return task < task_step.size() && task_role[task] != MscclRole::None; }
};

}  // namespace cc
