// What a trace carries for AIV mode (aiv.md): the JSON snapshots of the
// kernel launches, the AIV_GRAPH records that name them and, once expanded,
// where every generated node came from and what the co-simulation matched.
// Plain data; the snapshot reader is src/io/aiv/, the expansion src/aiv/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace cc {

using i32 = std::int32_t;

// The three in-order pipes of a block (aiv.md §1); PIPE_ALL only as a barrier type.
inline constexpr u32 kAivPipes = 3;
inline constexpr u32 kAivPipeS = 0, kAivPipeMte2 = 1, kAivPipeMte3 = 2, kAivPipeAll = 3;
// "S", "MTE2", "MTE3", "PIPE_ALL", or "pipe N".
std::string aiv_pipe_name(u32 pipe);

// Snapshot task types (aiv.md §2.5).
enum class AivTaskType : u32 { MemCopy = 0, Reduce, SetFlag, WaitFlag, PipeBarrier, SyncAll, SendFlag, RecvFlag };
inline constexpr u32 kAivTaskTypes = 8;
// "MEM_COPY" … "RECV_FLAG", or "taskType N".
std::string aiv_task_type_name(u32 type);

// Snapshot buffer types (aiv.md §2.5).
inline constexpr u32 kAivInput = 0, kAivOutput = 1, kAivCcl = 2, kAivUb = 3, kAivComm = 4;
inline constexpr u32 kAivBufferTypes = 5;
std::string aiv_buffer_type_name(u32 type);

inline constexpr u64 kAivCellBytes = 128;  // a flag cell of AIV_COMM (aiv.md §4.8)
inline constexpr u64 kAivFlagBytes = 4;    // the i32 a flag operation reads or writes

// `bufferType, offset, size` of a slice, as written.
struct AivSlice {
  u32 buffer = 0;
  u64 offset = 0, size = 0;
};

// One task object (aiv.md §2.5). Fields of the payload its type does not
// use stay 0.
struct AivTask {
  u32 type = 0;  // taskType as written (may be unknown: 111)
  u32 id = 0;    // taskId
  // The redundant copies of §2.5, when present.
  std::optional<u32> rank_id, block_id, cur_pipe;
  // MEM_COPY, REDUCE
  u32 src_rank = 0, dst_rank = 0;
  AivSlice src, dst;
  u32 data_type = 0, reduce_op = 0;  // REDUCE: codes
  // SET_FLAG, WAIT_FLAG
  u32 src_pipe = 0, dst_pipe = 0;
  i32 event = 0;
  // PIPE_BARRIER
  u32 pipe_type = 0;
  std::vector<u32> group;  // barrierGroupTaskIds
  // SYNC_ALL
  u32 round = 0;
  // SEND_FLAG (value = flagValue), RECV_FLAG (value = targetValue)
  u32 flag_rank = 0;
  u64 offset = 0;
  i32 value = 0;
};

// One block: its three lanes, each in issue order (aiv.md §2.4).
struct AivCore {
  u32 block = 0;  // blockIdx
  std::vector<AivTask> lanes[kAivPipes];
};

// A problem the reader found inside a snapshot (107 with the JSON path); any
// such problem keeps the launch from being expanded (aiv.md §5).
struct AivProblem {
  u16 code = 107;
  std::string message;
};

// One snapshot: the kernel launch (rank, launch) as the producer recorded it.
struct AivSnapshot {
  u32 rank = 0;
  u64 launch = 0;
  std::string json;  // the object as read, minified: what a written trace carries
  std::string file;  // the file it was read from ("" for a trace line)
  u32 line = 0;      // the trace line it was read from (0: a file)
  // Root fields (aiv.md §2.3); sizes 0 when absent.
  u32 rank_size = 0;
  u64 in_size = 0, out_size = 0, ccl_size = 0, comm_size = 0, ub_size = 0;
  bool has_in_size = false, has_out_size = false, has_ccl_size = false;
  u64 input_base = 0, output_base = 0;
  std::string cur_op;  // "curOp" as JSON text ("" when absent); shown with -v only
  std::vector<AivCore> cores;
  std::vector<AivProblem> problems;

  // "hcclvm_aiv_rank0_launch3_task.json" or "t.jsonl:7" (for messages).
  std::string where(std::string_view trace_file) const;
};

// One AIV_GRAPH record: Task::notify of the placeholder is its index.
struct AivRecord {
  u64 launch = 0;
  std::string origin;    // database: "opTask_P_5100 row 7"; trace: "" (the task's line)
  bool carried = false;  // a carried 107 already says its snapshot is unusable (convert)
};

enum class AivNodeKind : u8 {
  Start,      // START(AIV_SUB_GRAPH)
  End,        // END(AIV_SUB_GRAPH)
  Copy,       // MEM_COPY -> TRANS_MEM
  Reduce,     // REDUCE -> REDUCE
  EventSet,   // SET_FLAG -> EVSET
  EventWait,  // WAIT_FLAG -> EVWAIT
  Barrier,    // a PIPE_BARRIER group
  SyncAll,    // a SYNC_ALL round
  FlagSet,    // SEND_FLAG -> FLAGSET
  FlagWait,   // RECV_FLAG -> FLAGWAIT
};
std::string_view aiv_node_kind_name(AivNodeKind k);

// A member of a merged BARRIER/SYNCALL node.
struct AivMember {
  u32 block = 0;      // blockIdx
  u32 block_pos = 0;  // position in aivCores
  u8 pipe = 0;
  u32 pos = 0;        // index in its lane
  u32 task_id = 0;
};

// Where one generated node came from (aiv.md §4.1).
struct AivNodeInfo {
  AivNodeKind kind = AivNodeKind::Copy;
  u8 pipe = 0;        // lane (merged nodes: of their first member)
  u32 block = 0;      // blockIdx
  u32 block_pos = 0;  // position in aivCores
  u32 pos = 0;        // index in the lane
  u32 task_id = kNone;
  u32 group = kNone;  // Barrier, SyncAll: index into AivLaunch::groups
  // EventSet/EventWait: the event; FlagSet/FlagWait: the cell and value.
  u32 src_pipe = 0, dst_pipe = 0;
  i32 event = 0;
  u32 owner = 0;
  u64 offset = 0;
  i32 value = 0;
  u32 cell_slice = kNone;  // flag nodes: Trace::slices index of {owner, AIV_COMM, offset, 4}
  u32 cell = kNone;        // flag nodes: index into AivData::cells
  u32 event_key = kNone;   // event nodes: index into AivData::events
};

struct AivGroup {
  bool sync_all = false;
  u32 value = 0;  // barrier: pipeType; SyncAll: syncRound
  std::vector<AivMember> members;
};

// One expanded launch: its nodes live, in this order, in their own stream
// `stream` of `rank` (aiv_data.h, src/aiv/expand.cc).
struct AivLaunch {
  u32 rank = 0;
  u64 launch = 0;
  u32 placeholder = kNone;  // task id of the AIV_GRAPH record
  u32 record = kNone;       // index into AivData::records
  u32 snapshot = kNone;     // index into AivData::snapshots, kNone: none usable
  u32 stream = 0;           // stream id of the nodes
  bool expanded = false;    // false: expanded as an empty kernel (107, 105, 111)
  std::vector<AivNodeInfo> nodes;  // nodes[i] is task streams[...].first_task + i
  std::vector<AivGroup> groups;
};

// A pipe event of one (rank, launch, block): its (set, wait) pairs in
// pairing order (stage 3, aiv.md §6.2).
struct AivEvent {
  u32 launch = 0;  // index into AivData::launches
  std::vector<std::pair<u32, u32>> pairs;  // task ids
};

// A flag cell (owner rank, commInfoOffset) and what the co-simulation did to it.
struct AivCell {
  u32 owner = 0;
  u64 offset = 0;
  std::vector<u32> writes;  // FLAGSET task ids in simulated order
  std::vector<u8> changed;  // whether each write changed the value
};

// A FLAGWAIT that executed, and the write it observed.
struct AivObservation {
  u32 wait = 0;        // task id
  u32 cell = 0;        // index into AivData::cells
  u32 write = kNone;   // index into AivCell::writes of its producer; kNone: the initial 0
};

struct AivData {
  std::vector<AivSnapshot> snapshots;
  std::vector<AivRecord> records;
  // Database: snapshot files beside it that no record of this op group names
  // (not read; listed by -v, aiv.md §2.2).
  std::vector<std::string> unused_files;

  // Filled by the expansion.
  bool expanded = false;
  bool failed = false;  // a launch could not be expanded: the graph lacks its work
  std::vector<AivLaunch> launches;
  std::unordered_map<u64, u32> launch_of_stream;  // (rank << 32 | stream id) -> launch
  std::vector<u8> own_buffer;                     // by BufId: AIV_UB(…) and AIV_COMM
  std::vector<AivEvent> events;
  std::vector<AivCell> cells;
  std::vector<AivObservation> observations;

  bool has_input() const { return !records.empty() || !snapshots.empty(); }
  // The launch whose nodes stream (rank, stream id) holds, or nullptr.
  const AivLaunch* launch_at(u32 rank, u32 stream) const {
    auto it = launch_of_stream.find((u64{rank} << 32) | stream);
    return it == launch_of_stream.end() ? nullptr : &launches[it->second];
  }
  // A buffer the expansion made (AIV_UB of a block, AIV_COMM): never
  // written to a trace, bounded by the snapshots rather than the header.
  bool is_own_buffer(u32 buf) const { return buf < own_buffer.size() && own_buffer[buf]; }
  // After finalize_trace: task ids by their old position.
  void remap(const std::vector<u32>& new_id);
};

// The file a snapshot is kept in (aiv.md §2.2).
std::string aiv_snapshot_file_name(u32 rank, u64 launch);

}  // namespace cc
