// The rows of an HCCL VM database the importer reads (hcclvm-db.md §3), with
// their BLOBs decoded and every value checked against its column's type.
// Anything that cannot be decoded is an input error naming table, row and
// column (exit 2); what the values mean is judged later (hcclvm_op,
// hcclvm_tasks).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "io/hcclvm/blobs.h"
#include "io/hcclvm/sqlite.h"

namespace cc::hcclvm {

// One `opDetails` row: one rank's call of one operator.
struct OpRow {
  i64 id = 0;
  u64 pid = 0;
  u32 rank = 0;
  u64 sync_iter = 0;
  u32 root = 0;
  i64 dev_type = 0;
  u32 rank_size = 0;
  u32 src_rank = 0, dst_rank = 0;
  OpDetail detail;
  // opExtInfo is read when its group is assembled (read_ext): an AllToAllV
  // of N ranks stores 8·N² bytes per rank, too much to hold for every row.
};

// One `opMemInfo` row: the rank's INPUT, OUTPUT and CCL blocks.
struct MemRow {
  i64 id = 0;
  u64 addr[3] = {};  // INPUT, OUTPUT, CCL
  u64 size[3] = {};
};

struct DbRows {
  std::vector<OpRow> ops;                  // ordered by id (§4, collcheck rule)
  std::unordered_map<i64, MemRow> mem;     // by opDetailId: the row with the lowest id
  bool synced = false;                     // syncRecords holds a row
  u64 max_sync_iter = 0;                   // the last synchronised window
};

// Reads opDetails, opMemInfo and syncRecords (all three are required).
Result<DbRows> read_rows(Db& db);

// The opExtInfo blob of opDetails row `id` (NULL: empty).
Result<std::vector<u8>> read_ext(Db& db, i64 id);

// One task row, decoded into what the translator reads: 64 bytes where the
// full TaskMeta takes ~200 (its CCU SQE is kept beside the rows), so that
// the rows of a table in flight cost little next to the trace they become.
struct TaskRow {
  i64 id = 0;
  i64 seq = 0;  // taskSeq
  u64 stream = 0;
  union {
    u64 src_addr = 0;  // MEM_CPY, REDUCE
    u64 notify_id;     // NOTIFY_*
    u64 launch_idx;    // AIV_GRAPH
    u64 sqe_index;     // CCU_GRAPH: index into OpTasks::sqes
  };
  u64 dst_addr = 0;
  u64 len = 0;  // MEM_CPY len, REDUCE dataCount
  u32 rank = 0, src_rank = 0, dst_rank = 0;
  u8 type = 0, data_type = 0, reduce_op = 0, protocol = 0;
};

// The rows of one operator in one task table, in (taskSeq, id) order.
struct OpTasks {
  i64 op = 0;  // opDetails id
  std::vector<TaskRow> rows;
  std::vector<CcuSqe> sqes;
};

// "opTask_P_<pid>".
std::string task_table(u64 pid);

// The task rows of the operators `wanted` (opDetails ids, sorted ascending)
// in opTask_P_<pid>: one OpTasks per wanted operator that has rows,
// ascending by operator. One scan of the table on one prepared statement,
// columns read by position, each BLOB decoded where SQLite holds it; the
// BLOB of a row is read only when its operator is wanted. A missing table
// gives none (the caller decides whether that is an error).
Result<std::vector<OpTasks>> read_tasks(Db& db, u64 pid, const std::vector<i64>& wanted);

// The most rows opTask_P_<pid> can hold by its AUTOINCREMENT counter
// (sqlite_sequence), per table; none for tables without one. A capacity
// hint only: reserved memory nobody writes costs no resident memory.
std::unordered_map<std::string, u64> task_row_bounds(Db& db);

// `ccuInstrRes`: the newest usable image row per (rank, die). A missing
// table gives none (the CCU expansion then reports the missing image).
struct CcuImageRow {
  i64 id = 0;
  u32 rank = 0, die = 0;
  u32 words = 0;           // instrCount, 1 … 32768
  std::vector<u8> bytes;   // the first `words` × 32 bytes of instrSpace
};
// `skipped` receives the rows the reference skips too (instrCount 0 or
// above 32768), for a warning.
Result<std::vector<CcuImageRow>> read_ccu_images(Db& db, std::vector<i64>& skipped);

struct CcuChannelRow {
  i64 id = 0;
  u32 channel = 0, src_die = 0, dst_die = 0, src_rank = 0, dst_rank = 0;
};
Result<std::vector<CcuChannelRow>> read_ccu_channels(Db& db);

}  // namespace cc::hcclvm
