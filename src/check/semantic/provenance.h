// Provenance of bytes for the semantic stage (checks.md, stage 5), kept
// compact so that a 1024-rank reduction costs O(1) per segment, not O(n).
//
// A byte's provenance is a multiset of contributions (q, INPUT, offset). For
// a run of bytes written by one copy or reduce, the offsets move with the
// address: byte `a` holds (q, a + shift + delta). So a segment of the split
// interval map stores
//   * `set`: an interned *contribution set*, a sorted list of terms
//     {ranks [lo,hi), delta, multiplicity}, canonical (terms sorted by
//     (delta as a signed number, lo), touching ranges of equal delta and
//     multiplicity merged, smallest delta 0), so equal sets have equal ids
//     and a set seen at another shift is the same id;
//   * `shift`: added to the byte's address (u64 arithmetic, wrapping);
//   * the reduce op that combined the contributions (when more than one),
//     a "mixed" marker, a poison flag and the last writer.
// A copy only changes `shift` (O(1) per segment); a reduce is a memoised
// union of two sets (`ContribSets::unite`), O(terms) the first time and a
// hash look-up after. A ring's partial sums are one or two rank ranges, so
// every set the ring builds has at most two terms.
#pragma once

#include <span>
#include <string>
#include <cstdint>
#include <vector>

#include "model/types.h"

namespace cc {

// Ranks [lo, hi) each contribute INPUT at offset (address + shift + delta),
// `mult` times each.
struct ContribTerm {
  u32 lo = 0, hi = 0;
  u64 delta = 0;
  u32 mult = 1;
  bool operator==(const ContribTerm&) const = default;
};

using SetId = u32;
inline constexpr SetId kEmptySet = 0;    // no data
inline constexpr SetId kUnknownSet = 1;  // data the stage cannot follow

// Reduce-op marker of a provenance: an op (0..3 = ReduceOp), none, or mixed.
inline constexpr u8 kNoOp = 0xfe;
inline constexpr u8 kMixedOp = 0xff;

// Poisoned: the bytes went through a reduce with an unfilled side (401/402/
// 403 already reported there); whatever they hold is garbage.
inline constexpr u8 kProvPoisoned = 1;

struct Prov {
  u64 shift = 0;
  SetId set = kEmptySet;
  u32 writer = kNone;  // task that last wrote these bytes
  u8 op = kNoOp;
  u8 flags = 0;
  bool operator==(const Prov&) const = default;
  // Same data, whoever wrote it.
  bool same_data(const Prov& o) const {
    return shift == o.shift && set == o.set && op == o.op && flags == o.flags;
  }
  bool empty() const { return set == kEmptySet; }
  bool unknown() const { return set == kUnknownSet; }
};

class ContribSets {
 public:
  ContribSets();

  SetId single(u32 rank);           // {rank}, delta 0
  SetId ranks(u32 lo, u32 hi);      // ranks [lo, hi), delta 0

  struct Union {
    SetId set = kEmptySet;
    u64 adjust = 0;        // add to the first operand's shift
    bool overlap = false;  // a contribution present on both sides
  };
  // a ∪ b, where b's shift is a's shift + `rel`. Neither may be empty or
  // unknown.
  Union unite(SetId a, SetId b, u64 rel);

  std::span<const ContribTerm> terms(SetId s) const {
    return {pool_.data() + sets_[s].first, term_count(s)};
  }
  u64 total(SetId s) const { return sets_[s].total; }  // contributions, with multiplicity
  // A single contribution counted once: a plain copy of one rank's INPUT.
  bool is_single(SetId s) const { return sets_[s].total == 1; }
  std::size_t size() const { return sets_.size(); }
  u64 unions() const { return unions_; }
  u64 memo_hits() const { return memo_hits_; }

  // Canonicalises `terms` (any order, may overlap), interns them and returns
  // the id; `adjust` receives what to add to the shift (the smallest delta).
  SetId intern(std::vector<ContribTerm>& terms, u64& adjust);

 private:
  // 16 bytes: a 10^7-task ring interns a million sets. A set's terms are
  // appended to the pool as it is interned, so they end where the next
  // set's begin; of the hash, the low half is all a table of at most 2^32
  // slots indexes by.
  struct SetInfo {
    u64 total = 0;
    u32 first = 0;  // the terms: pool_[first, the next set's first)
    u32 hash = 0;
  };
  std::size_t term_count(SetId s) const {
    return (s + 1 < sets_.size() ? sets_[s + 1].first : pool_.size()) - sets_[s].first;
  }
  // The memo is direct-mapped: a fixed table where a new union evicts the
  // one in its slot. Bounded memory, no allocation; a schedule that repeats
  // a union (every iteration of a loop, every chunk of a mesh) hits it.
  struct MemoEntry {
    SetId a = kNone, b = kNone;
    u64 rel = 0;
    Union u;
  };
  static constexpr std::size_t kMemoSlots = std::size_t{1} << 15;
  SetId intern_canonical(const ContribTerm* terms, std::size_t count);
  void grow_table();

  std::vector<ContribTerm> pool_;
  std::vector<SetInfo> sets_;
  std::vector<SetId> table_;  // open addressing by hash, kNone = free
  std::vector<MemoEntry> memo_;
  std::vector<SetId> singles_;
  SetId all_ = kNone;
  u32 all_n_ = 0;
  std::vector<ContribTerm> scratch_, merged_, canon_;
  std::vector<std::pair<u32, std::int64_t>> events_;
  u64 unions_ = 0, memo_hits_ = 0;
};

// Text of a provenance at `addr`, as the Provenance lines print it:
// "1 contribution: rank 1 INPUT offset 0x100",
// "4 contributions (SUM): ranks 0-3 INPUT offset 0x0", "no data".
std::string describe_prov(const ContribSets& sets, const Prov& p, u64 addr);
// What a range [b, e) holds, for headlines: "rank 1 INPUT [0x100,0x200)",
// "the SUM of ranks 0-3 INPUT [0x0,0x100)", "nothing".
std::string describe_data(const ContribSets& sets, const Prov& p, u64 b, u64 e);

}  // namespace cc
