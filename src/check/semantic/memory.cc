#include "check/semantic/memory.h"

#include <algorithm>

#include "model/describe.h"

namespace cc {

std::string last_writer_line(const Trace& t, u32 writer) {
  return "Last writer: " + (writer == kNone ? std::string("none (nothing was written here)") : task_line(t, writer));
}

ProvMap& ProvMemory::map(u32 rank, BufId buf) {
  u64 key = u64{rank} << 16 | buf;
  if (key == last_key_[0]) return *last_[0];
  if (key == last_key_[1]) {
    std::swap(last_key_[0], last_key_[1]);
    std::swap(last_[0], last_[1]);
    return *last_[0];
  }
  auto [it, fresh] = maps_.try_emplace(key);
  if (fresh) it->second = initial(rank, buf);
  last_key_[1] = last_key_[0];
  last_[1] = last_[0];
  last_key_[0] = key;
  last_[0] = &it->second;
  return it->second;
}

const ProvMap* ProvMemory::find(u32 rank, BufId buf) const {
  auto it = maps_.find(u64{rank} << 16 | buf);
  return it == maps_.end() ? nullptr : &it->second;
}

ProvMap ProvMemory::initial(u32 rank, BufId buf) const {
  ProvMap m;
  if (buf != kInput || rank >= t_.op.ranks) return m;
  bool root_only = t_.op.type == OpType::Broadcast || t_.op.type == OpType::Scatter;
  // Only the operator's own bytes hold the rank's data: an INPUT declared
  // larger (an ST dump's framework sizes, stlog.md §6, or any declaration)
  // is scratch beyond them and starts empty.
  u64 size = std::min(t_.buffer_size(rank, kInput), t_.implied_size(rank, kInput));
  if ((!root_only || rank == t_.op.root) && size != BufferSizes::kUndeclared && size > 0) {
    Prov p;
    p.set = sets_.single(rank);
    m.update(0, size, [&](u64, u64, Prov& v) { v = p; });
  }
  return m;
}

void ProvMemory::read(const ProvMap& m, u64 src, u64 len, u64 dst, std::vector<ProvPiece>& out) {
  u64 end = src + len, at = src;
  u64 move = src - dst;  // provenance shift from the source frame to the destination frame
  m.scan(src, end, [&](u64 b, u64 e, const Prov& p) {
    if (b > at) out.push_back({at - src + dst, b - src + dst, Prov{}});
    ProvPiece piece{b - src + dst, e - src + dst, p};
    if (!p.empty() && !p.unknown()) piece.prov.shift += move;
    out.push_back(piece);
    at = e;
  });
  if (at < end) out.push_back({at - src + dst, end - src + dst, Prov{}});
}

ProvMap& ProvMemory::pair(u32 rank, BufId buf, u32 pair) { return pairs_[{rank, buf, pair}]; }

ProvMap* ProvMemory::find_pair(u32 rank, BufId buf, u32 pair) {
  auto it = pairs_.find({rank, buf, pair});
  return it == pairs_.end() ? nullptr : &it->second;
}

u64 ProvMemory::segments() const {
  u64 n = 0;
  for (const auto& [key, m] : maps_) n += m.size();
  return n;
}

}  // namespace cc
