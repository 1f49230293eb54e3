// The buffers of every rank as split interval maps of provenance, created on
// first use: nothing is allocated per rank the operator names but no task or
// result touches. INPUT starts as the rank's own contributions (for
// Broadcast and Scatter only the root's) over the operator's own size;
// everything else, and INPUT declared beyond that size, starts empty.
#pragma once

#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "check/interval_map.h"
#include "check/semantic/provenance.h"
#include "model/trace.h"

namespace cc {

using ProvMap = SplitIntervalMap<Prov>;

// A run of bytes read from a buffer: [begin, end) in the reader's frame (the
// destination), with the provenance already shifted into that frame.
struct ProvPiece {
  u64 begin = 0, end = 0;
  Prov prov;
};

// "Last writer: 2/0/6 (f.jsonl:27) TRANS_MEM ..." (or that nothing wrote).
std::string last_writer_line(const Trace& t, u32 writer);

class ProvMemory {
 public:
  ProvMemory(const Trace& t, ContribSets& sets) : t_(t), sets_(sets) {}

  ProvMap& map(u32 rank, BufId buf);
  // The map if some task touched it, else nullptr (nothing is created).
  const ProvMap* find(u32 rank, BufId buf) const;
  // A buffer's content before any task ran.
  ProvMap initial(u32 rank, BufId buf) const;

  // Appends the pieces of [src, src+len) of `m`, gaps as empty pieces,
  // moved to the frame where `src` lands at `dst`.
  static void read(const ProvMap& m, u64 src, u64 len, u64 dst, std::vector<ProvPiece>& out);

  u64 segments() const;

  // The MS slots of merged CCU loops (ccu.md §9.6): batch pair `pair` of an
  // MS buffer has contents of its own, so that iterations reusing a slot
  // do not mix. Created empty on first use; find_pair is nullptr before.
  ProvMap& pair(u32 rank, BufId buf, u32 pair);
  ProvMap* find_pair(u32 rank, BufId buf, u32 pair);

 private:
  const Trace& t_;
  ContribSets& sets_;
  std::unordered_map<u64, ProvMap> maps_;
  std::map<std::tuple<u32, BufId, u32>, ProvMap> pairs_;
  // The two buffers used last (a task's source and destination).
  u64 last_key_[2] = {~u64{0}, ~u64{0}};
  ProvMap* last_[2] = {nullptr, nullptr};
};

}  // namespace cc
