#include "ccu/resolve.h"

#include <fmt/format.h>

#include <algorithm>

namespace cc::ccu {

AddressMap::AddressMap(const Trace& t) : t_(t) {
  for (const CcuAddress& a : t.ccu.addresses) {
    u64 size = t.buffer_size(a.rank, a.buf);
    if (size == BufferSizes::kUndeclared || size == 0) continue;
    Range r{a.addr, a.addr + size, a.rank, a.buf};
    if (r.end < r.start) r.end = ~u64{0};  // a buffer reaching the top of the address space
    all_.push_back(r);
    by_rank_[a.rank].push_back(r);
  }
  auto order = [](const Range& x, const Range& y) {
    return x.start != y.start ? x.start < y.start : x.buf < y.buf;
  };
  std::sort(all_.begin(), all_.end(), order);
  for (auto& [rank, v] : by_rank_) std::sort(v.begin(), v.end(), order);
}

// The buffer with the greatest start <= addr that contains addr; among equal
// starts the lowest buffer id. Buffers rarely overlap; when they do (dumps
// with aliased blocks) this choice is stable and documented.
const AddressMap::Range* AddressMap::find(const std::vector<Range>& v, u64 addr) const {
  auto it = std::upper_bound(v.begin(), v.end(), addr, [](u64 a, const Range& r) { return a < r.start; });
  const Range* best = nullptr;
  while (it != v.begin()) {
    --it;
    if (best && it->start != best->start) break;
    if (addr < it->end) best = &*it;  // walking back: equal starts end at the lowest buffer id
  }
  return best;
}

Result<Slice> AddressMap::resolve(u32 rank, u64 addr, u64 len) const {
  auto it = by_rank_.find(rank);
  if (it != by_rank_.end())
    if (const Range* r = find(it->second, addr)) {
      Slice out{addr - r->start, len, rank, r->buf};
      if (t_.op.in_place && out.buf == kOutput) out.buf = kInput;
      return out;
    }
  if (const Range* r = find(all_, addr))
    return Error{fmt::format("address {:#x} lies in rank {} {} (offset {:#x}), not in a buffer of rank {}", addr,
                             r->rank, t_.buffers.name(r->buf), addr - r->start, rank)};
  return Error{fmt::format("address {:#x} lies in no buffer of any rank", addr)};
}

u16 AddressMap::fault_code(u64 addr) const { return find(all_, addr) ? 112 : 110; }

ChannelMap::ChannelMap(const std::vector<CcuChannel>& channels) : channels_(channels) {
  for (u32 i = 0; i < channels.size(); ++i) {
    const CcuChannel& c = channels[i];
    u64 key = (u64{c.rank} << 40) ^ (u64{c.die} << 32) ^ c.channel;
    index_.emplace(key, i);
  }
}

const CcuChannel* ChannelMap::find(u32 rank, u32 die, u32 channel) const {
  u64 key = (u64{rank} << 40) ^ (u64{die} << 32) ^ channel;
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  const CcuChannel& c = channels_[it->second];
  if (c.rank != rank || c.die != die || c.channel != channel) return nullptr;
  return &c;
}

}  // namespace cc::ccu
