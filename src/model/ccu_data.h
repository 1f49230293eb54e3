// What a trace carries for CCU mode (ccu.md): the inputs of the expansion
// (SQEs, instruction images, channels, buffer addresses) and, once
// expanded, where every generated node came from. Plain data; the
// expansion itself is src/ccu/.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace cc {

enum class CcuIsa : u8 { A5, A6 };  // Ascend 950 "CcuV1", Ascend 960 "CcuV2" (ccu.md §1.5)

inline constexpr u32 kCcuSqeArgs = 13;
inline constexpr u32 kCcuWordBytes = 32;
inline constexpr u32 kCcuMaxWords = 32768;  // instruction ids per (rank, die)
inline constexpr u64 kCcuMsSlotBytes = 4096;

// One CCU_GRAPH record (ccu.md §1.1). A CCU_GRAPH task refers to its SQE by
// Task::notify (an index into CcuData::sqes).
struct CcuSqe {
  u8 die = 0;
  u8 mission = 0;
  u16 timeout = 0;
  u16 inst_start = 0;
  u16 inst_count = 0;
  u32 key = 0;
  u32 arg_size = 0;
  u64 args[kCcuSqeArgs] = {};
};

// Consecutive instruction words [start, start + bytes.size()/32).
struct CcuWordBlock {
  u32 start = 0;
  std::vector<u8> bytes;
};

// The instruction image of one (rank, die): blocks sorted by start, never
// overlapping; ids not in a block read as all-zero words. `size` is the
// image's length in words (executing a pc at or past it is 105).
struct CcuImage {
  u32 rank = 0, die = 0;
  u32 size = 0;
  std::vector<CcuWordBlock> blocks;
};

// (rank, die, channel) -> (peer rank, peer die) (ccu.md §1.3).
struct CcuChannel {
  u32 rank = 0, die = 0, channel = 0;
  u32 peer_rank = 0, peer_die = 0;
};

// The base address of buffer `buf` on `rank`; its size is the trace's
// buffer size (ccu.md §1.4, §6.1).
struct CcuAddress {
  u32 rank = 0;
  u16 buf = 0;
  u64 addr = 0;
};

// A6: the CCU register address of a die (ccu.md §15.4).
struct CcuDieBase {
  u32 rank = 0, die = 0;
  u64 base = 0;
};

enum class CcuNodeKind : u8 {
  SubStart,   // START(CCU_SUB_GRAPH)
  SubEnd,     // END(CCU_SUB_GRAPH)
  LoopStart,  // START(LOOP)
  LoopEnd,    // END(LOOP)
  Data,       // TRANS_MEM, REDUCE, BATCH_*
  Record,     // a CKE post
  Wait,       // a satisfied CKE wait
  Blocked,    // a CKE wait that was never satisfied (deadlock, 102)
};

// Where one generated node came from (ccu.md §5.4: rank and stream of the
// placeholder, plus a sub-position).
struct CcuNodeInfo {
  CcuNodeKind kind = CcuNodeKind::Data;
  u8 die = 0;      // sync nodes: the die whose CKE is posted or waited on
  u16 cke = 0;     // sync nodes: CKE id
  u16 mask = 0;    // sync nodes: bits
  u16 header = 0;  // the instruction word's header (0 for the mission's START/END)
  u32 lane = 0;    // 0: the mission's own lane; k >= 1: its k-th loop instance
  u32 pc = kNone;  // instruction id of the word that made the node
  u32 loop = kNone;  // LOOP boundaries: instruction id of the Loop word
  u32 copy = 0, iterations = 0;  // LOOP boundaries: copy index; iteration count
  u32 copies = 1;  // LOOP boundaries of a merged loop (ccu.md §9.6): the copies it stands for
};

// One expanded mission: its nodes live, in creation order, in their own
// stream `stream` of `rank` (every node unchained, kTaskUnchained).
struct CcuMission {
  u32 rank = 0, die = 0, mission = 0;
  u32 placeholder = kNone;  // task id of the mission's first CCU_GRAPH record
  u32 stream = 0;           // id of the stream holding the nodes
  u32 first_pc = 0, end_pc = 0;
  std::vector<CcuNodeInfo> nodes;  // nodes[i] is task streams[...].first_task + i
};

struct CcuData {
  CcuIsa isa = CcuIsa::A5;
  std::vector<CcuSqe> sqes;
  std::vector<CcuImage> images;
  std::vector<CcuChannel> channels;
  std::vector<CcuAddress> addresses;
  std::vector<CcuDieBase> die_bases;

  // Filled by the expansion.
  bool expanded = false;
  bool failed = false;  // a mission could not be expanded: the graph lacks work
  std::vector<CcuMission> missions;
  std::unordered_map<u64, u32> mission_of_stream;  // (rank << 32 | stream id) -> mission

  bool has_input() const { return !sqes.empty(); }
  // The mission whose nodes stream (rank, stream id) holds, or nullptr.
  const CcuMission* mission_at(u32 rank, u32 stream) const {
    auto it = mission_of_stream.find((u64{rank} << 32) | stream);
    return it == mission_of_stream.end() ? nullptr : &missions[it->second];
  }
};

}  // namespace cc
