// Decoders of the packed BLOBs of an HCCL VM database (hcclvm-db.md §5–§8):
// `opDetail`, `opExtInfo` and `opTaskMeta`. Pure functions on bytes, no
// SQLite: every length and every count is checked against the bytes given
// before anything is read or allocated, so they are safe on any input
// (tests/fuzz/fuzz_hcclvm_blobs.cc). An Error says what is wrong with the
// bytes; the caller adds the table, row and column.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/ccu_data.h"
#include "model/result.h"
#include "model/types.h"

namespace cc::hcclvm {

using Bytes = std::span<const u8>;

inline constexpr std::size_t kOpDetailBytes = 28;
inline constexpr std::size_t kTaskMetaBytes = 155;

// Little-endian loads at `at`; the caller has checked the length.
u64 load_le(Bytes b, std::size_t at, std::size_t width);

// `opDetail` (§5), both views at once, as the reference reads it.
struct OpDetail {
  u16 op_type = 0;
  u16 data_type = 0;    // @2; all-to-all: the send type
  u16 reduce_type = 0;  // @4
  u64 count = 0;        // @6; all-to-all: sendCount
  u16 recv_data_type = 0;  // @24 (V2 view)
  u64 recv_count = 0;      // @16 (V2 view)
};
// Fails (with the reason) when the blob is shorter than 28 bytes.
Result<OpDetail> decode_op_detail(Bytes b);

// HcclCMDType codes (§8.2) collcheck maps.
enum HcclCmd : u16 {
  kCmdBroadcast = 1, kCmdAllReduce = 2, kCmdReduce = 3, kCmdSend = 4, kCmdReceive = 5,
  kCmdAllGather = 6, kCmdReduceScatter = 7, kCmdAllToAllV = 8, kCmdAllToAllVC = 9,
  kCmdAllToAll = 10, kCmdGather = 11, kCmdScatter = 12, kCmdBatchSendRecv = 13,
  kCmdAllGatherV = 16, kCmdReduceScatterV = 17,
};
// The HCCL name of an operator code ("" if HCCL defines none).
std::string_view hccl_cmd_name(u16 code);

// `opExtInfo` of AllGatherV / ReduceScatterV (§6): exactly 8 + 16·N bytes.
struct VCounts {
  u64 local = 0;
  std::vector<u64> counts, displs;
};
Result<VCounts> decode_v_counts(Bytes b, u32 ranks);

// `opExtInfo` of the all-to-all family (§6): u32 n = N², then n u64 cells.
// collcheck requires the exact length 4 + 8·N² (the reference zero-fills a
// short tail; a cell count larger than the blob is refused before use).
Result<std::vector<u64>> decode_matrix(Bytes b, u32 ranks);

// `opExtInfo` of BatchSendRecv (§6): exactly 4 bytes, u32 itemNum.
Result<u32> decode_batch_items(Bytes b);

// HccLTaskMetaType (§8.1).
enum MetaType : u8 {
  kMetaNotifyWait = 0, kMetaNotifyRecord = 1, kMetaReduce = 2, kMetaMemCpy = 3,
  kMetaCcuGraph = 4, kMetaAivGraph = 5, kMetaEventWait = 6, kMetaEventRecord = 7,
};
std::string_view meta_type_name(u8 type);  // "" for codes HCCL does not define

// `opTaskMeta` (§7): the 35-byte header and the union member its type
// selects. Fields of other members stay zero.
struct TaskMeta {
  u8 type = 0;
  u32 rank = 0;    // header rankId @3
  u64 stream = 0;  // header streamId @7
  // MEM_CPY, REDUCE, NOTIFY_*: srcRankId @35, dstRankId @47.
  u32 src_rank = 0, dst_rank = 0;
  u64 src_addr = 0, dst_addr = 0;  // @39, @51 (MEM_CPY, REDUCE)
  u64 len = 0;                     // @59: MEM_CPY len, REDUCE dataCount
  u8 data_type = 0, reduce_op = 0;  // @67, @68 (REDUCE)
  u8 protocol = 0;                  // advisory only (§8.5)
  u64 notify_id = 0;                // @39 (NOTIFY_*)
  CcuSqe sqe;                       // CCU_GRAPH (§7.2)
  u64 launch_idx = 0;               // AIV_GRAPH
};
// Fails when the blob is shorter than 155 bytes (the reference uses the
// first 155 bytes of a longer one, and so does collcheck).
Result<TaskMeta> decode_task_meta(Bytes b);

// The fields of an `opTaskMeta` blob of at least kTaskMetaBytes (the caller
// checks), each read where §7 puts it and only when asked for:
// decode_task_meta reads them all; the importer, which reads 10^7 of them,
// only those its row keeps, straight from SQLite's page.
class TaskMetaBytes {
 public:
  explicit TaskMetaBytes(const u8* p) : p_(p) {}
  u8 type() const { return p_[0]; }
  u32 rank() const { return le<u32>(3); }
  u64 stream() const { return le<u64>(7); }
  // MEM_CPY, REDUCE, NOTIFY_*.
  u32 src_rank() const { return le<u32>(35); }
  u32 dst_rank() const { return le<u32>(47); }
  // MEM_CPY, REDUCE.
  u64 src_addr() const { return le<u64>(39); }
  u64 dst_addr() const { return le<u64>(51); }
  u64 len() const { return le<u64>(59); }  // MEM_CPY len, REDUCE dataCount
  u8 data_type() const { return p_[67]; }  // REDUCE
  u8 reduce_op() const { return p_[68]; }  // REDUCE
  // Advisory only (§8.5): where the type keeps it, else 0.
  u8 protocol() const {
    switch (type()) {
      case kMetaMemCpy: return p_[67];
      case kMetaReduce: return p_[69];
      case kMetaNotifyWait:
      case kMetaNotifyRecord: return p_[52];
      default: return 0;
    }
  }
  u64 notify_id() const { return le<u64>(39); }   // NOTIFY_*
  u64 launch_idx() const { return le<u64>(35); }  // AIV_GRAPH
  CcuSqe sqe() const;                             // CCU_GRAPH

 private:
  template <class T>
  T le(std::size_t at) const {
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>(v | T{p_[at + i]} << (8 * i));
    return v;
  }
  const u8* p_;
};

// Copies the fields `m`'s type defines into `out` (a struct with
// TaskMeta's field names; the others stay as they are) and hands a
// CCU_GRAPH record to `sqe(m)`.
template <class Out, class OnSqe>
void copy_task_fields(TaskMetaBytes m, Out& out, OnSqe&& sqe) {
  out.type = m.type();
  out.rank = m.rank();
  out.stream = m.stream();
  out.protocol = m.protocol();
  switch (out.type) {
    case kMetaReduce:
      out.data_type = m.data_type();
      out.reduce_op = m.reduce_op();
      [[fallthrough]];
    case kMetaMemCpy:
      out.src_rank = m.src_rank();
      out.src_addr = m.src_addr();
      out.dst_rank = m.dst_rank();
      out.dst_addr = m.dst_addr();
      out.len = m.len();
      break;
    case kMetaNotifyWait:
    case kMetaNotifyRecord:
      out.src_rank = m.src_rank();
      out.notify_id = m.notify_id();
      out.dst_rank = m.dst_rank();
      break;
    case kMetaAivGraph: out.launch_idx = m.launch_idx(); break;
    case kMetaCcuGraph: sqe(m); break;
    default: break;
  }
}

}  // namespace cc::hcclvm
