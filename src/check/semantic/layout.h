// What each rank's result buffer must hold (checks.md, stage 5 table), as
// blocks of required provenance in address order. Blocks are produced per
// rank on demand: AllGather-like layouts are arithmetic (block q of size D),
// so a rank whose result holds nothing costs O(1) even with a million ranks;
// the others are tables whose size the header's own lists (counts, matrix,
// items) already back.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "check/semantic/provenance.h"
#include "check/sink.h"
#include "model/trace.h"

namespace cc {

struct RequiredBlock {
  u64 begin = 0, end = 0;
  Prov want;  // set, shift and op; writer unused
};

class RequiredLayout {
 public:
  // Reports 405 for parameters that cannot be checked; `checkable()` is then
  // false when nothing at all can be compared.
  RequiredLayout(const Trace& t, ContribSets& sets, FindingSink& out);

  bool checkable() const { return checkable_; }
  BufId result_buffer() const { return t_.op.in_place ? kInput : kOutput; }
  // Ranks whose result is constrained, in increasing order: call select()
  // for each before next(); select returns false if the rank has no block.
  u32 first_rank() const;
  u32 end_rank() const;
  bool select(u32 rank);
  // The first block of the selected rank whose end is past `addr`.
  bool next(u64 addr, RequiredBlock& out);
  // Whether an empty stretch may be reported across block ends (blocks are
  // back to back, so a stretch of nothing covers whole blocks).
  bool contiguous() const { return uniform_; }
  u64 span_end() const { return span_end_; }
  // "rank 1 INPUT [0x0,0x100)" or a summary of the blocks [b, e) meets.
  std::string expected_text(u64 b, u64 e);

 private:
  void report(std::string message);
  void build_items();
  void build_gatherv();

  const Trace& t_;
  ContribSets& sets_;
  FindingSink& out_;
  bool checkable_ = true;
  u32 rank_ = 0;
  // Arithmetic layout: `blocks_n_` blocks of `stride_` bytes; block q holds
  // rank q's INPUT at offset base_ + x.
  bool uniform_ = false;
  u64 stride_ = 0, base_ = 0, blocks_n_ = 0;
  // Table layout of the selected rank.
  std::vector<RequiredBlock> table_;
  u64 span_end_ = 0;
  // AllToAllV: Σ_{j<rank} M[q][j] for every q, advanced rank by rank.
  std::vector<u64> row_prefix_;
  u32 prefix_rank_ = 0;
  // Send/recv items and AllGatherV: blocks by destination rank / shared.
  std::unordered_map<u32, std::vector<RequiredBlock>> by_rank_;
  std::vector<RequiredBlock> shared_;
};

}  // namespace cc
