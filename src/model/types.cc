#include "model/types.h"

#include <array>

namespace cc {
namespace {

constexpr std::array<std::string_view, kOpTypeCount> kOpNames = {
    "AllReduce", "AllGather", "ReduceScatter", "AllGatherV", "ReduceScatterV",
    "Broadcast", "Reduce",    "Scatter",       "Gather",     "AllToAll",
    "AllToAllV", "SendRecv",  "BatchSendRecv"};

constexpr std::array<std::string_view, kDataTypeCount> kDataTypeNames = {
    "INT8",  "INT16", "INT32",  "INT64", "UINT8",   "UINT16",  "UINT32", "UINT64", "FP16",
    "BFP16", "FP32",  "FP64",   "INT128", "HIF8",   "FP8E4M3", "FP8E5M2", "FP8E8M0"};

constexpr std::array<u32, kDataTypeCount> kDataTypeSizes = {1, 2, 4, 8, 1, 2, 4, 8, 2,
                                                             2, 4, 8, 16, 1, 1, 1, 1};

constexpr std::array<std::string_view, kReduceOpCount> kReduceOpNames = {"SUM", "PROD", "MAX",
                                                                         "MIN"};

constexpr std::array<std::string_view, 9> kTaskTypeNames = {
    "TRANS_MEM", "BATCH_TRANS_MEM", "REDUCE", "BATCH_REDUCE", "RECORD", "WAIT", "UNKNOWN", "CCU_GRAPH", "AIV_GRAPH"};

constexpr std::array<std::string_view, 6> kLinkNames = {"", "SDMA", "RDMA", "CCU", "LOCAL", "AIV"};

template <typename E, std::size_t N>
std::optional<E> find_name(const std::array<std::string_view, N>& names, std::string_view s,
                           std::size_t first = 0) {
  for (std::size_t i = first; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

std::string_view name(OpType t) { return kOpNames[static_cast<int>(t)]; }
std::string_view name(DataType t) { return kDataTypeNames[static_cast<int>(t)]; }
std::string_view name(ReduceOp t) { return kReduceOpNames[static_cast<int>(t)]; }
std::string_view name(TaskType t) { return kTaskTypeNames[static_cast<int>(t)]; }
std::string_view name(Link t) { return kLinkNames[static_cast<int>(t)]; }

std::optional<OpType> parse_op_type(std::string_view s) { return find_name<OpType>(kOpNames, s); }
std::optional<DataType> parse_data_type(std::string_view s) {
  return find_name<DataType>(kDataTypeNames, s);
}
std::optional<ReduceOp> parse_reduce_op(std::string_view s) {
  return find_name<ReduceOp>(kReduceOpNames, s);
}
std::optional<TaskType> parse_task_type(std::string_view s) {
  // UNKNOWN is internal, never a name in a file; CCU_GRAPH exists only from
  // trace version 2 on, so the reader recognises it itself.
  auto t = find_name<TaskType>(kTaskTypeNames, s);
  if (t && (*t == TaskType::UNKNOWN || *t == TaskType::CCU_GRAPH || *t == TaskType::AIV_GRAPH)) return std::nullopt;
  return t;
}
std::optional<Link> parse_link(std::string_view s) {
  auto l = find_name<Link>(kLinkNames, s, 1);
  if (l && *l == Link::AIV) return std::nullopt;  // internal: only the AIV expansion makes such tasks
  return l;
}

u32 size_of(DataType t) { return kDataTypeSizes[static_cast<int>(t)]; }

bool is_floating(DataType t) {
  switch (t) {
    case DataType::FP16:
    case DataType::BFP16:
    case DataType::FP32:
    case DataType::FP64:
    case DataType::HIF8:
    case DataType::FP8E4M3:
    case DataType::FP8E5M2:
    case DataType::FP8E8M0:
      return true;
    default:
      return false;
  }
}

bool op_reduces(OpType t) {
  return t == OpType::AllReduce || t == OpType::ReduceScatter || t == OpType::ReduceScatterV ||
         t == OpType::Reduce;
}
bool op_has_root(OpType t) {
  return t == OpType::Broadcast || t == OpType::Reduce || t == OpType::Scatter ||
         t == OpType::Gather;
}
bool op_has_count(OpType t) {
  switch (t) {
    case OpType::AllGatherV:
    case OpType::ReduceScatterV:
    case OpType::AllToAllV:
    case OpType::SendRecv:
    case OpType::BatchSendRecv:
      return false;
    default:
      return true;
  }
}

std::optional<DataType> hccl_data_type(u64 code) {
  using D = DataType;
  static constexpr D kTypes[] = {D::INT8,   D::INT16,  D::INT32,  D::FP16,  D::FP32, D::INT64,
                                 D::UINT64, D::UINT8,  D::UINT16, D::UINT32, D::FP64, D::BFP16,
                                 D::INT128, D::INT8 /* 13: refused below */,  D::HIF8, D::FP8E4M3,
                                 D::FP8E5M2, D::FP8E8M0};
  if (code == 13 || code >= std::size(kTypes)) return std::nullopt;
  return kTypes[code];
}

std::optional<ReduceOp> hccl_reduce_op(u64 code) {
  if (code > 3) return std::nullopt;
  return static_cast<ReduceOp>(code);  // SUM, PROD, MAX, MIN in HCCL's order
}

}  // namespace cc
