// Task rows of one op group -> collcheck tasks (hcclvm-db.md §9, §10,
// §12.2): raw addresses resolved into (rank, INPUT|OUTPUT|CCL, offset),
// positions (rank, stream, index), and the records collcheck cannot turn
// into tasks reported with HCCL's codes at their position.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "io/hcclvm/groups.h"
#include "model/finding.h"
#include "model/trace.h"

namespace cc::hcclvm {

inline constexpr BufId kCcl = 2;  // interned right after INPUT and OUTPUT
inline constexpr u32 kBlockTypes = 3;

struct ImportOptions {
  bool keep_stream_ids = false;  // no dense renumbering of a rank without stream 0 (§10)
  bool recorded_peers = false;   // trust stored notify peers (§11, opt-in)
};

// A buffer block of a member rank; size 0: the rank has no such block.
struct Block {
  u64 start = 0, size = 0;
  bool contains(u64 a) const { return size != 0 && a >= start && a - start < size; }
};
using RankBlocks = std::array<Block, kBlockTypes>;  // INPUT, OUTPUT, CCL

// The blocks of the current op group's members only (§9, collcheck rule).
class Blocks {
 public:
  void add(u32 rank, const MemRow& m);
  const RankBlocks* of(u32 rank) const;
  const std::map<u32, RankBlocks>& all() const { return by_rank_; }

 private:
  std::map<u32, RankBlocks> by_rank_;
};

// Every member's INPUT and OUTPUT blocks are the same memory: the operator
// runs in place (Broadcast also when it records no OUTPUT block).
bool blocks_in_place(const Blocks& blocks, OpType type);

// One RECORD or WAIT whose peer the notify inference decides. 16 bytes
// (millions of them): whether it records is its task's type, and the peer
// the row stores (dstRankId of a RECORD, srcRankId of a WAIT) waits in its
// task's `peer` until the inference replaces it.
struct SyncUse {
  u64 id = 0;    // notifyId as stored (64 bits)
  u32 task = 0;  // append position in the trace
  u32 rank = 0;
};

// Appends one member's rows to `trace` (positions are append order until
// finalize_trace) and its importer findings to `findings`.
class TaskTranslator {
 public:
  TaskTranslator(Trace& trace, const Blocks& blocks, std::vector<Finding>& findings, const ImportOptions& options);

  void member(const OpRow& m, const OpTasks& tasks);
  // Room for `tasks` more tasks (a hint; see task_row_bounds).
  void reserve(std::size_t tasks);
  // The RECORDs and WAITs translated, in task order (the translator keeps
  // none).
  std::vector<SyncUse> take_syncs() { return std::move(syncs_); }

 private:
  struct Side {
    bool resolved = false;
    Slice slice;
  };
  Side resolve(const char* side, u64 addr, u64 len, u32 expected);
  void data_task(const TaskRow& row, TaskType type, u64 len);
  void unknown(const TaskRow& row, u16 code, std::string message);
  void push(Task k);
  std::string where(const TaskRow& row) const;
  void number_streams(u32 first_task);

  Trace& t_;
  const Blocks& blocks_;
  std::vector<Finding>& findings_;
  ImportOptions opt_;
  std::vector<SyncUse> syncs_;
  std::map<std::tuple<u32, u32, u32>, bool> ambiguous_warned_;
  bool host_stub_warned_ = false;
  // The member being translated.
  const OpRow* m_ = nullptr;
  std::string table_;
  std::vector<Finding> pending_;  // findings of the current task
};

}  // namespace cc::hcclvm
