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

// One task row, decoded.
struct TaskRow {
  i64 id = 0;
  i64 seq = 0;  // taskSeq
  TaskMeta meta;
};

// "opTask_P_<pid>".
std::string task_table(u64 pid);

// The task rows of the operators `wanted` (opDetails ids) in opTask_P_<pid>,
// each operator's rows in (taskSeq, id) order. One scan of the table; the
// BLOB of a row is read only when its operator is wanted. A missing table
// gives an empty map (the caller decides whether that is an error).
Result<std::unordered_map<i64, std::vector<TaskRow>>> read_tasks(Db& db, u64 pid,
                                                                 const std::unordered_set<i64>& wanted);

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
