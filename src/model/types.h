// Small enumerations of the trace model and their names in the trace format.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cc {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

inline constexpr u32 kNone = 0xffffffffu;  // "no task / no index"

enum class OpType : u8 {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllGatherV,
  ReduceScatterV,
  Broadcast,
  Reduce,
  Scatter,
  Gather,
  AllToAll,
  AllToAllV,
  SendRecv,
  BatchSendRecv,
};
inline constexpr int kOpTypeCount = 13;

enum class DataType : u8 {
  INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64,
  FP16, BFP16, FP32, FP64, INT128, HIF8, FP8E4M3, FP8E5M2, FP8E8M0,
};
inline constexpr int kDataTypeCount = 17;

enum class ReduceOp : u8 { SUM, PROD, MAX, MIN };
inline constexpr int kReduceOpCount = 4;

enum class TaskType : u8 {
  TRANS_MEM,
  BATCH_TRANS_MEM,
  REDUCE,
  BATCH_REDUCE,
  RECORD,
  WAIT,
  // A record the reader could not turn into a node (unknown task type); it
  // keeps its place in the stream as a no-op so the rest can still be built.
  UNKNOWN,
  // A CCU_GRAPH record (ccu.md): a host-stream placeholder for one SQE of a
  // CCU mission. Once expanded it is a no-op that completes with its
  // mission; CCU-generated boundary nodes (START/END of CCU_SUB_GRAPH and
  // LOOP, flag kTaskCcu) have this type too.
  CCU_GRAPH,
  // An AIV_GRAPH record (aiv.md): a host-stream placeholder for one AIV
  // kernel launch. Once expanded it is a no-op that completes with its
  // launch; the expansion's boundary and merged nodes (START/END of
  // AIV_SUB_GRAPH, BARRIER, SYNCALL; flag kTaskAiv) have this type too.
  AIV_GRAPH,
};

// AIV: a copy or reduce of an AIV kernel (never read from a trace file).
enum class Link : u8 { NONE, SDMA, RDMA, CCU, LOCAL, AIV };

std::string_view name(OpType t);
std::string_view name(DataType t);
std::string_view name(ReduceOp t);
std::string_view name(TaskType t);
std::string_view name(Link t);

std::optional<OpType> parse_op_type(std::string_view s);
std::optional<DataType> parse_data_type(std::string_view s);
std::optional<ReduceOp> parse_reduce_op(std::string_view s);
std::optional<TaskType> parse_task_type(std::string_view s);
std::optional<Link> parse_link(std::string_view s);

// HCCL's numeric codes, as HCCL VM rows and AIV snapshots store them:
// HcclDataType (nullopt for 13 and 18 up) and HcclReduceOp 0-3.
std::optional<DataType> hccl_data_type(u64 code);
std::optional<ReduceOp> hccl_reduce_op(u64 code);

// Bytes per element.
u32 size_of(DataType t);
// Floating-point element types (their sums depend on the order of the terms).
bool is_floating(DataType t);

inline bool is_data_task(TaskType t) {
  return t == TaskType::TRANS_MEM || t == TaskType::BATCH_TRANS_MEM ||
         t == TaskType::REDUCE || t == TaskType::BATCH_REDUCE;
}
inline bool is_reduce_task(TaskType t) {
  return t == TaskType::REDUCE || t == TaskType::BATCH_REDUCE;
}
inline bool is_sync_task(TaskType t) {
  return t == TaskType::RECORD || t == TaskType::WAIT;
}

// Operators that combine data with a reduce op.
bool op_reduces(OpType t);
// Operators with a root rank.
bool op_has_root(OpType t);
// Operators whose `count` is meaningful.
bool op_has_count(OpType t);

}  // namespace cc
