#include "model/op.h"

namespace cc {

std::optional<u64> checked_mul(u64 a, u64 b) {
  u64 r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<u64> checked_add(u64 a, u64 b) {
  u64 r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

namespace {

using Size = std::optional<u64>;

Size mul(Size a, Size b) { return a && b ? checked_mul(*a, *b) : std::nullopt; }

// max_q(displs[q] + counts[q]) * u: the extent of a V operator's big buffer.
Size v_extent(const Op& op) {
  u64 m = 0;
  for (std::size_t q = 0; q < op.counts.size() && q < op.displs.size(); ++q) {
    Size end = checked_add(op.displs[q], op.counts[q]);
    if (!end) return std::nullopt;
    if (*end > m) m = *end;
  }
  return checked_mul(m, op.elem_size());
}

Size v_count(const Op& op, u32 rank) {
  if (rank >= op.counts.size()) return 0;
  return checked_mul(op.counts[rank], op.elem_size());
}

// Sum of row `rank` (sends) or column `rank` (receives) of the AllToAllV matrix.
Size matrix_sum(const Op& op, u32 rank, bool row) {
  u64 n = op.ranks, sum = 0;
  if (rank >= n || op.send_counts.size() != n * n) return 0;
  for (u64 k = 0; k < n; ++k) {
    u64 v = row ? op.send_counts[rank * n + k] : op.send_counts[k * n + rank];
    Size s = checked_add(sum, v);
    if (!s) return std::nullopt;
    sum = *s;
  }
  return checked_mul(sum, op.elem_size());
}

Size items_sum(const Op& op, u32 rank, bool sends) {
  u64 sum = 0;
  for (const SendRecvItem& it : op.items) {
    if ((sends ? it.src : it.dst) != rank) continue;
    Size s = checked_add(sum, it.count);
    if (!s) return std::nullopt;
    sum = *s;
  }
  return checked_mul(sum, op.elem_size());
}

}  // namespace

std::optional<u64> implied_input_size(const Op& op, u32 rank) {
  Size d = checked_mul(op.count, op.elem_size());
  switch (op.type) {
    case OpType::AllReduce:
    case OpType::AllGather:
    case OpType::Broadcast:
    case OpType::Reduce:
    case OpType::Gather:
      return d;
    case OpType::ReduceScatter:
    case OpType::AllToAll:
      return mul(d, op.ranks);
    case OpType::Scatter:
      return rank == op.root ? mul(d, op.ranks) : Size(0);
    case OpType::AllGatherV:
      return v_count(op, rank);
    case OpType::ReduceScatterV:
      return v_extent(op);
    case OpType::AllToAllV:
      return matrix_sum(op, rank, true);
    case OpType::SendRecv:
    case OpType::BatchSendRecv:
      return items_sum(op, rank, true);
  }
  return std::nullopt;
}

std::optional<u64> implied_output_size(const Op& op, u32 rank) {
  Size d = checked_mul(op.count, op.elem_size());
  switch (op.type) {
    case OpType::AllReduce:
    case OpType::ReduceScatter:
    case OpType::Broadcast:
    case OpType::Reduce:
    case OpType::Scatter:
      return d;
    case OpType::AllGather:
    case OpType::AllToAll:
      return mul(d, op.ranks);
    case OpType::Gather:
      return rank == op.root ? mul(d, op.ranks) : Size(0);
    case OpType::AllGatherV:
      return v_extent(op);
    case OpType::ReduceScatterV:
      return v_count(op, rank);
    case OpType::AllToAllV:
      return matrix_sum(op, rank, false);
    case OpType::SendRecv:
    case OpType::BatchSendRecv:
      return items_sum(op, rank, false);
  }
  return std::nullopt;
}

bool in_place_allowed(OpType t) {
  return t == OpType::AllReduce || t == OpType::Broadcast || t == OpType::Reduce;
}

}  // namespace cc
