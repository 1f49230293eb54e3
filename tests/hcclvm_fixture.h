// Builds HCCL VM databases (hcclvm-db.md §13) through the SQLite C API, for
// the importer's tests and its fuzz target: every BLOB byte by byte in
// little-endian order, every integer bound with sqlite3_bind_int64, one
// transaction. Nothing here depends on GoogleTest.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipeline/stages.h"
#include "pipeline/pipeline.h"
#include "model/ccu_data.h"
#include "model/trace.h"

struct sqlite3;

namespace cc::test::vm {

using i64 = long long;
using Blob = std::vector<u8>;

// ---- BLOBs (§5–§7) ----
// OpDetails, V1 view: opType, dataType @2 and @14, reduceType @4, count @6,
// reduceOpType @16 (written for AllReduce, Reduce, ReduceScatter as the
// proxy does).
Blob op_detail(u16 op_type, u16 data_type, u16 reduce_type, u64 count);
// OpDetails, V2 view (all-to-all).
Blob op_detail_a2a(u16 op_type, u16 send_type, u64 send_count, u16 recv_type, u64 recv_count);
Blob v_ext(u64 local, const std::vector<u64>& counts, const std::vector<u64>& displs);
Blob matrix_ext(const std::vector<u64>& cells);  // u32 n = cells.size(), then the cells
Blob batch_ext(u32 items);

// HcclTaskMetaData: 155 bytes; header bytes 15–18 FF (jettyId).
Blob meta_header(u8 type, u32 rank, u64 stream);
Blob memcpy_meta(u32 rank, u64 stream, u32 src_rank, u64 src, u32 dst_rank, u64 dst, u64 len, u8 protocol = 0);
Blob reduce_meta(u32 rank, u64 stream, u32 src_rank, u64 src, u32 dst_rank, u64 dst, u64 count, u8 data_type,
                 u8 reduce_op);
// Notify rows store `src_rank`/`dst_rank` as given (HCCL: the own rank in both).
Blob notify_meta(bool record, u32 rank, u64 stream, u64 id, u32 src_rank, u32 dst_rank);
Blob ccu_meta(u32 rank, u64 stream, const CcuSqe& sqe);
// AIV_GRAPH (taskType 5): u64 launchIdx at byte 35 (§7.2).
Blob aiv_meta(u32 rank, u64 stream, u64 launch);

// HcclCMDType / HcclDataType codes of collcheck's model (the inverse of the
// importer's mapping).
u16 cmd_code(OpType t);
u16 data_type_code(DataType t);

// ---- rows (§3) ----
struct TaskFx {
  i64 seq = 0;
  Blob meta;
  std::optional<i64> op_detail_id;  // default: the owning operator's id
};

struct OpFx {
  u64 pid = 0;
  u32 rank = 0;
  u64 op_iter = 0, sync_iter = 0;
  u32 root = 0, mode = 1;
  i64 dev_type = 6;
  u32 rank_size = 1;
  u32 src_rank = 0, dst_rank = 0;
  Blob detail;
  Blob ext;              // empty: written as a zero-length blob
  bool mem_row = true;   // write its opMemInfo row
  u64 in_addr = 0, in_size = 0, out_addr = 0, out_size = 0, ccl_addr = 0, ccl_size = 0;
  std::vector<TaskFx> tasks;  // into opTask_P_<pid>
};

struct SyncFx {
  u64 pid = 0;
  u32 rank = 0, rank_size = 1;
  u64 sync_iter = 0;
};

struct CcuImageFx {
  u32 device = 0, rank = 0, die = 0;
  u64 count = 0;  // instrCount
  Blob space;     // instrSpace
};

struct CcuChannelFx {
  u32 channel = 0, src_die = 0, dst_die = 0, src_rank = 0, dst_rank = 0;
};

struct Fixture {
  std::vector<OpFx> ops;  // opDetails ids 1, 2, … in this order
  std::vector<SyncFx> syncs;
  std::vector<CcuImageFx> images;
  std::vector<CcuChannelFx> channels;
  std::set<std::string> omit_tables;   // e.g. "syncRecords", "opTask_P_5101"
  std::vector<std::string> extra_sql;  // run last (corruptions the rows cannot express)
  bool wal = false;                    // journal_mode=WAL, left open as HCCL VM does
  // Files written beside the database (name, content): the AIV snapshots
  // hcclvm_aiv_rank{R}_launch{L}_task.json (aiv.md §2.2).
  std::vector<std::pair<std::string, std::string>> files;
};

// Writes the database (§13.1): a new file at `path`, or into an open,
// empty connection. Returns "" or what failed.
std::string write_fixture(const Fixture& f, const std::string& path);
std::string write_fixture(const Fixture& f, sqlite3* db);

// The 2-rank AllGather of §13.2.
Fixture allgather2();

// A trace (e.g. from collcheck gen with --fold-ccl) as the rows HCCL VM would
// write for it (an AIV trace, not expanded: its AIV_GRAPH tasks as records and
// its snapshots as files): invented addresses per rank and buffer, every stream's tasks
// as task rows, every sync key a notify id of its own (so the peer
// inference recovers it), the operator's parameters in opDetails/opExtInfo.
// Buffers must be INPUT, OUTPUT and CCL; BATCH tasks become one row per
// pair, reduces one row per source. `error` says why a trace cannot be
// written.
Fixture from_trace(const Trace& t, std::string& error, u64 sync_iter = 0, u64 first_pid = 5100);
// A simple correct schedule of the operators gen has no algorithm for (V
// operators, AllToAll(V), SendRecv, BatchSendRecv with any items): on
// stream 0, every rank tells each rank that reads from it "ready", pulls
// its data (copies, or reduces for ReduceScatterV) from the sources'
// INPUT, and says "done" to each source, which waits for it.
Trace pull_schedule(const Op& op);
// The address the rows give (rank, buffer, offset) in from_trace.
u64 fixture_address(u32 rank, BufId buf, u64 offset);

// ---- importing and checking ----
// Writes `f` to a temporary file NAME.db (a fixture with files: NAME/hccl_vm_data.db,
// the files beside it in a directory of its own) and loads it as `collcheck
// check` would; `path` receives the file name.
Result<std::vector<LoadedCase>> import_fixture(const Fixture& f, const std::string& name,
                                               const InputOptions& options = {}, std::string* path = nullptr,
                                               const ExpandOptions& expand = {});
// Checks one case (all stages, default options).
CheckResult check_case(LoadedCase& c, const CheckOptions& options = {});
// The distinct codes of a result (0 for named warnings), and its tags.
std::set<int> codes(const CheckResult& r);
bool has_tag(const CheckResult& r, const std::string& tag);
std::string codes_text(const std::set<int>& codes);
// The finding with `code` (and `tag` for code 0), or nullptr.
const Finding* find(const CheckResult& r, int code, const std::string& tag = "");

// ---- fuzzing ----
// A compact byte form of a fixture, so that a fuzzer's mutations reach the
// rows and BLOBs; parse never fails (it stops where the bytes end).
std::string serialize_fixture(const Fixture& f);
Fixture parse_fixture(const u8* data, std::size_t size);
// The seed corpus of fuzz_hcclvm_blobs: file name -> bytes.
std::vector<std::pair<std::string, std::string>> fuzz_seeds();

}  // namespace cc::test::vm
