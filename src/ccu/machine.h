// Machine state of the CCU co-simulation (ccu.md §4, §7): per (rank, die)
// the register files and CKE bitmaps shared by every mission on that die,
// and the posts (RECORD nodes) whose bits are not yet consumed.
#pragma once

#include <map>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace cc::ccu {

// A set of CKE bits and the RECORD node that made it (§7.2).
struct Post {
  u32 node = 0;            // the RECORD node
  u32 rank = 0, die = 0;   // whose CKE received the bits
  u16 cke = 0, mask = 0;   // posted bits
  u16 remaining = 0;       // bits no wait has consumed yet
  bool remote = false;     // posted through a channel (SyncCKE, Sync*, 0x1007)
  bool data = false;       // a data word's completion
  bool control_set = false;  // a SetCKE word's own set
  bool read_by_sync = false; // SyncCKE sent some of its bits on (constant source)
  bool consumed = false;     // some wait took bits from it
  u32 data_node = kNone;    // the data node whose completion it is
  u32 mission = 0, pc = 0;   // where it was posted (messages)
  u16 header = 0;
};

struct DieState {
  std::unordered_map<u16, u64> xn, gsa;     // written registers only
  std::unordered_map<u16, u16> cke;         // absent = 0
  std::unordered_map<u16, std::vector<u32>> live;  // CKE id -> posts with remaining bits, in post order
  std::unordered_map<u16, u16> carried;     // bits from an earlier operator without a post
  u16 cke_value(u16 id) const {
    auto it = cke.find(id);
    return it == cke.end() ? 0 : it->second;
  }
};

class Machine {
 public:
  DieState& die(u32 rank, u32 die) { return dies_[{rank, die}]; }
  const std::map<std::pair<u32, u32>, DieState>& dies() const { return dies_; }
  std::vector<Post> posts;
  // A6 HBM scratch of Store/Load (§15.2): (rank, address) -> the stored registers.
  std::map<std::pair<u32, u64>, std::vector<u64>> hbm;

 private:
  std::map<std::pair<u32, u32>, DieState> dies_;
};

// CKE values kept from one operator to the next (--ccu-carry-cke, §4).
struct CcuCarry {
  std::map<std::tuple<u32, u32, u16>, u16> cke;  // (rank, die, id) -> bits
};

}  // namespace cc::ccu
