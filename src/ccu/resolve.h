// Addresses and channels (ccu.md §6): a 64-bit address of a rank becomes a
// slice of one of that rank's buffers; a channel names a peer rank and die.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/result.h"
#include "model/trace.h"

namespace cc::ccu {

class AddressMap {
 public:
  explicit AddressMap(const Trace& t);

  // The slice of `rank`'s buffer that holds `addr` (length `len`), or an
  // Error naming where the address lies instead; fault_code says which
  // finding that is.
  Result<Slice> resolve(u32 rank, u64 addr, u64 len) const;
  // The code of an address that did not resolve: 112 when another rank's
  // buffer holds it, 110 when no buffer does.
  u16 fault_code(u64 addr) const;

 private:
  struct Range {
    u64 start = 0, end = 0;  // [start, end)
    u32 rank = 0;
    BufId buf = 0;
  };
  const Range* find(const std::vector<Range>& sorted, u64 addr) const;
  const Trace& t_;
  std::vector<Range> all_;                          // sorted by start
  std::unordered_map<u32, std::vector<Range>> by_rank_;
};

class ChannelMap {
 public:
  explicit ChannelMap(const std::vector<CcuChannel>& channels);
  // The peer of (rank, die, channel), or nullptr (107).
  const CcuChannel* find(u32 rank, u32 die, u32 channel) const;

 private:
  std::unordered_map<u64, u32> index_;
  const std::vector<CcuChannel>& channels_;
};

// MS(id, len) on `rank` (§6.2): offset id * 4096 in buffer `ms`.
inline Slice ms_slice(u32 rank, BufId ms, u16 id, u64 len) {
  return Slice{u64{id} * kCcuMsSlotBytes, len, rank, ms};
}

}  // namespace cc::ccu
