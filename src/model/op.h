// The collective operator a trace records, and the buffer sizes it implies.
#pragma once

#include <optional>
#include <vector>

#include "model/types.h"

namespace cc {

// Upper bound on `Op::ranks`: far above any real communicator, low enough
// that per-rank tables stay small even for a hostile header.
inline constexpr u32 kMaxRanks = u32{1} << 20;

struct SendRecvItem {
  u32 src = 0;
  u32 dst = 0;
  u64 count = 0;  // elements
};

struct Op {
  OpType type = OpType::AllReduce;
  u32 ranks = 0;
  DataType data_type = DataType::INT8;
  u64 count = 0;  // elements per rank (operators with a count)
  ReduceOp reduce_op = ReduceOp::SUM;
  bool has_reduce_op = false;
  u32 root = 0;
  std::vector<u64> counts;       // V operators: n element counts
  std::vector<u64> displs;       // V operators: n displacements (prefix sums if not given)
  bool displs_given = false;
  std::vector<u64> send_counts;  // AllToAllV: n*n, row-major [i*n+j] = i sends to j
  std::vector<SendRecvItem> items;
  bool in_place = false;
  // False when only `ranks` is known: an ST log checked without operator
  // parameters (stlog.md §6). INPUT and OUTPUT then have no implied size and
  // the semantic stage is skipped (902). Written as {"type":"Unknown"}.
  bool known = true;

  u64 elem_size() const { return size_of(data_type); }
};

// Byte sizes of INPUT and OUTPUT on `rank` as the operator implies them
// (checks.md, table of stage 5). nullopt: the size does not fit in 64 bits.
std::optional<u64> implied_input_size(const Op& op, u32 rank);
std::optional<u64> implied_output_size(const Op& op, u32 rank);

// Whether `inPlace` is allowed for this operator (trace-format.md).
bool in_place_allowed(OpType t);

// Overflow-checked arithmetic for sizes computed from a file.
std::optional<u64> checked_mul(u64 a, u64 b);
std::optional<u64> checked_add(u64 a, u64 b);

}  // namespace cc
