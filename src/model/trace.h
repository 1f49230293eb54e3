// The trace: one operator, its buffers, and every rank's streams of tasks.
//
// Storage is data-oriented so that ten million tasks fit comfortably: tasks,
// groups and slices live in flat arrays and refer to each other by index.
// After `finalize_trace`, the tasks of one stream are contiguous and in
// execution order, streams are sorted by (rank, stream id), and task ids are
// positions in `tasks`.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/aiv_data.h"
#include "model/result.h"
#include "model/ccu_data.h"
#include "model/msccl_info.h"
#include "model/op.h"
#include "model/types.h"

namespace cc {

// Interned buffer type names. INPUT and OUTPUT always have ids 0 and 1.
using BufId = u16;
inline constexpr BufId kInput = 0;
inline constexpr BufId kOutput = 1;

struct BufferNames {
  std::vector<std::string> names{"INPUT", "OUTPUT"};
  std::unordered_map<std::string, BufId> ids{{"INPUT", kInput}, {"OUTPUT", kOutput}};

  // Returns the id of `name`, adding it if new (kNone16 if the table is full).
  BufId intern(std::string_view name);
  const std::string& name(BufId id) const { return names[id]; }
};
inline constexpr BufId kNoBuf = 0xffff;

// The half-open byte range [offset, offset+len) of buffer `buf` on `rank`.
struct Slice {
  u64 offset = 0;
  u64 len = 0;
  u32 rank = 0;
  BufId buf = 0;
};

// One destination and the sources that feed it. A copy has exactly one
// source; a reduce has any number (zero is an error of stage 2).
struct Group {
  u32 dst = 0;        // index into Trace::slices
  u32 first_src = 0;  // index of the first source slice
  u32 src_count = 0;
};

// Flags on a task.
enum TaskFlags : u8 {
  kTaskCcu = 1,        // produced by CCU expansion (ccu.md)
  kTaskPrematched = 2, // a sync whose edges are explicit (Trace::extra_edges)
  // No implicit stream edge from the task before it on its stream: the task
  // starts a new chain (see TaskGraph) and runs as soon as its explicit
  // predecessors have. CCU nodes are unchained (ccu.md §5.4).
  kTaskUnchained = 4,
  // Never executes: a wait nothing can release (a CCU wait on bits no post
  // sets). Its successors never run; the graph is incomplete.
  kTaskBlocked = 8,
  // The semantic stage cannot follow this task's data (e.g. a CCU reduce
  // that casts its output, ccu.md §3.4).
  kTaskSemanticUnchecked = 16,
  // A RECORD/WAIT whose notify index its source dropped (an ST dump's
  // generic Post(idx)/Wait(idx), stlog.md §5.3): its notify id may stand
  // for several notifies, so stage 3 warns where it would report 602.
  kTaskNotifyIndexLost = 32,
  kTaskAiv = 64,  // produced by AIV expansion (aiv.md); AivData::launch_at names its launch
};

struct Task {
  TaskType type = TaskType::UNKNOWN;
  DataType data_type = DataType::INT8;  // reduces: element type
  ReduceOp reduce_op = ReduceOp::SUM;   // reduces: the operator
  Link link = Link::NONE;
  u8 flags = 0;
  // How the source format labelled the task where the model has no field
  // for it (an ST log's "originated tag"; the kind or type name of an
  // UNKNOWN task): 1-based index into Trace::tags, 0 = none.
  // Informational: reports and writers print it, no check reads it.
  u8 tag = 0;
  u32 rank = 0;
  u32 stream = 0;  // stream id as written in the file
  // (Its position within the stream is Trace::task_index: the stream ranges
  // give it, and 4 bytes a task are 40 MB at 10^7 tasks.)
  u32 line = 0;  // 1-based line of the source file (0: none)

  // A data task (is_data_task) has groups [first_group(), first_group() +
  // group_count()); a RECORD or WAIT has a peer() (RECORD: waitRank, WAIT:
  // recordRank) and a notify() (its notifyId); a CCU_GRAPH record's
  // notify() is its index into Trace::ccu.sqes, an AIV_GRAPH record's its
  // index into Trace::aiv.records. No task uses both pairs, so they share
  // 8 bytes (80 MB at 10^7 tasks); each reads as 0 on a task of the other
  // kind, and a setter writes the shared slot: set the type first, then
  // only the pair of its kind.
  u32 first_group() const { return is_data_task(type) ? slot_a_ : 0; }
  u32 group_count() const { return is_data_task(type) ? slot_b_ : 0; }
  u32 peer() const { return is_data_task(type) ? 0 : slot_a_; }
  u32 notify() const { return is_data_task(type) ? 0 : slot_b_; }
  void set_first_group(u32 v) { slot_a_ = v; }
  void set_group_count(u32 v) { slot_b_ = v; }
  void set_peer(u32 v) { slot_a_ = v; }
  void set_notify(u32 v) { slot_b_ = v; }

 private:
  u32 slot_a_ = 0;  // first_group or peer
  u32 slot_b_ = 0;  // group_count or notify
};
static_assert(sizeof(Task) == 28);

struct Stream {
  u32 rank = 0;
  u32 id = 0;
  u32 first_task = 0;
  u32 task_count = 0;
};

// Byte sizes of the buffers of every rank. Nothing here is allocated in
// proportion to the rank count unless the operator itself lists per-rank
// numbers (V counts, an AllToAllV matrix), so a hostile header cannot make
// collcheck allocate memory it has not seen backed by data.
struct BufferSizes {
  static constexpr u64 kUndeclared = ~u64{0};
  // A declared size of 2^64-1 bytes cannot be stored as itself (that is
  // kUndeclared): readers keep it as kWhole, which holds every slice whose
  // end does not overflow, as a buffer of 2^64-1 bytes does.
  static constexpr u64 kWhole = kUndeclared - 1;
  // The largest end a slice may have in a buffer of `size` bytes.
  static constexpr u64 end_limit(u64 size) { return size == kWhole ? ~u64{0} : size; }
  std::vector<u64> declared;  // by BufId; kUndeclared if not in `buffers`
  std::unordered_map<u64, u64> per_rank;  // (rank << 16 | buf) -> size, from rankBuffers
  // Implied INPUT/OUTPUT sizes: a constant, the root's, or a per-rank table.
  u64 input_all = 0, output_all = 0;
  u64 input_root = 0, output_root = 0;
  bool by_root = false;
  std::vector<u64> input_by_rank, output_by_rank;            // V ops, AllToAllV
  std::unordered_map<u32, u64> input_sparse, output_sparse;  // send/recv items
  bool sparse = false;
};

struct Trace {
  std::string file;  // as given on the command line (reports)
  std::string name;  // header "name" (optional)
  Op op;
  BufferNames buffers;
  BufferSizes sizes;
  std::vector<Task> tasks;
  std::vector<Group> groups;
  std::vector<Slice> slices;
  std::vector<Stream> streams;
  // Explicit edges (from, to) beyond stream order and RECORD->WAIT pairing,
  // for imported graphs and CCU expansion.
  std::vector<std::pair<u32, u32>> extra_edges;
  // CCU mode: expansion inputs and, once expanded, the origin of CCU nodes.
  CcuData ccu;
  // AIV mode: snapshots, AIV_GRAPH records and, once expanded, the launches.
  AivData aiv;
  // The execution order an expansion's co-simulation found (task ids of
  // every task it executed, host and expanded). build_graph adopts it as τ
  // when it is a topological order of the final graph, so that every stage
  // sees the order the co-simulation matched in (aiv.md §4.4, §6.4).
  std::vector<u32> sim_order;
  // MSCCL input: the steps the tasks come from (reports name them).
  MscclInfo msccl;
  // Remarks an importer attaches to tasks (e.g. that a notify's peer was
  // inferred from an id only one rank uses); run_checks adds each to every
  // finding that names its task.
  std::vector<std::pair<u32, std::string>> task_notes;
  // An importer decided this operator is not checked (never synchronised,
  // or refused: its findings say why); run_checks then runs no stage.
  bool unchecked = false;
  // Names an importer gives the notify ids it interned (an ST log's
  // (notifyType, link, topic) tuples, stlog.md §5.3), sorted by id, and the
  // labels Task::tag refers to. Informational, like Task::tag.
  std::vector<std::pair<u32, std::string>> notify_names;
  std::vector<std::string> tags;
  // Destinations an importer found recorded larger than what their copy
  // moves (an ST dump's copies, stlog.md §5.2): (slice index, recorded
  // length), sorted by slice. The slice itself holds the bytes moved, which
  // every stage works with; stage 2 also requires the recorded extent to lie
  // in its buffer, reports show it, writers keep it.
  std::vector<std::pair<u32, u64>> recorded_lens;
  // Notify ids an importer could not tell apart fully (an ST dump's
  // cross-rank keys, which print neither the transport nor the plane of a
  // notify, stlog.md §5.3), sorted: one used on several streams may stand
  // for several notifies, so stage 3 warns where it would report 602.
  // Every other id names one notify.
  std::vector<u32> inexact_notifies;

  // The name of notify id `id` ("" if none).
  std::string_view notify_name(u32 id) const;
  // The Task::tag of `label`, added if new; 0 when the table is full (the
  // label is informational: losing one is harmless).
  u8 intern_tag(std::string_view label);
  // The label of a task ("" if none).
  std::string_view tag_of(const Task& k) const {
    return k.tag && k.tag <= tags.size() ? std::string_view(tags[k.tag - 1]) : std::string_view();
  }

  bool notify_inexact(u32 id) const {
    return std::binary_search(inexact_notifies.begin(), inexact_notifies.end(), id);
  }
  // The position of task `task` within its stream, from 0 (after
  // finalize_trace: a stream's tasks are contiguous).
  u32 task_index(u32 task) const;
  u32 task_index(const Task& k) const { return task_index(static_cast<u32>(&k - tasks.data())); }

  // The recorded length of slice `slice` when recorded_lens holds one.
  std::optional<u64> recorded_len(u32 slice) const;

  // Size of `buf` on `rank`, or BufferSizes::kUndeclared.
  u64 buffer_size(u32 rank, BufId buf) const;
  // The size the operator itself gives INPUT or OUTPUT on `rank` (checks.md),
  // whatever is declared: the bytes that hold its data. kUndeclared for
  // other buffers and an unknown operator.
  u64 implied_size(u32 rank, BufId buf) const;

  const Group& group(const Task& t, u32 i) const { return groups[t.first_group() + i]; }
  const Slice& slice(u32 i) const { return slices[i]; }
  u32 stream_of(u32 task) const;  // index into `streams` (binary search)
};

// Sorts tasks into per-stream order, builds `streams`, and fills the implied
// INPUT/OUTPUT sizes. Returns an error message if an implied size overflows.
// `new_ids`, if given, receives each task's new id by its old position.
Status finalize_trace(Trace& trace, std::vector<u32>* new_ids = nullptr);

}  // namespace cc
