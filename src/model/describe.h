// Text for slices, tasks and sync keys, as every report prints them.
#pragma once

#include <string>

#include "model/finding.h"
#include "model/trace.h"

namespace cc {

// "[0x400,0x800)"
std::string hex_range(u64 begin, u64 end);
// "rank 2 CCL [0x400,0x800)"
std::string describe_slice(const Trace& t, const Slice& s);
// "2/0/3"
std::string task_position(const Trace& t, u32 task);
// "2/0/3 (ring.jsonl:41)"
std::string task_ref(const Trace& t, u32 task);
// "TRANS_MEM src=rank 2 INPUT [0x0,0x400) dst=rank 2 CCL [0x400,0x800) link=LOCAL"
std::string describe_task(const Trace& t, u32 task);
// The same in the trace's own terms, for tasks an importer names otherwise
// (MSCCL steps, model/msccl_describe.h).
std::string generic_task_description(const Trace& t, u32 task);
// "WAIT(3→2 #5)" / "RECORD(2→3 #6)"
std::string describe_sync(const Trace& t, u32 task);
// "2/0/3 (ring.jsonl:41) TRANS_MEM src=..."
std::string task_line(const Trace& t, u32 task);

// The CCU mission a CCU node belongs to (and its sequence number in it), or
// nullptr for any other task.
const CcuMission* ccu_mission_of(const Trace& t, u32 task, u32* seq);
// " (pc 6 TransLocMemToRmtMem, lane 1)" for a CCU node, "" otherwise.
std::string describe_ccu_suffix(const Trace& t, u32 task);

// The AIV launch a node of the AIV expansion belongs to (and its index in
// the launch's nodes), or nullptr for any other task.
const AivLaunch* aiv_launch_of(const Trace& t, u32 task, u32* index);
// The flag cell an AIV flag operation reads or writes (its Trace::slices
// index; kNone for any other task); `write` says whether it writes it
// (SendFlag) or reads it. Stage 4 compares it like a data access.
u32 aiv_flag_access(const Trace& t, u32 task, bool& write);
// "rank0 L0.b0.S[2]" for an AIV node (its members for a merged one, aiv.md
// §4.1), "rank0 L0.START"/"END" for the boundary nodes; task_position otherwise.
std::string aiv_short_name(const Trace& t, u32 task);
// The AIV part of a JSON report's task entry (aiv.md §4.1); its rank,
// stream and index become the placeholder's.
void aiv_task_ref(const Trace& t, u32 task, TaskRef& ref);
// The CCU part of a report's task entry: a mission's node is named by its
// mission's placeholder (rank, stream, index, line) and its position in
// the mission, as the text report names it.
void ccu_task_ref(const Trace& t, u32 task, TaskRef& ref);

// A RECORD/WAIT's key endpoints.
inline u32 record_rank(const Task& k) { return k.type == TaskType::RECORD ? k.rank : k.peer(); }
inline u32 wait_rank(const Task& k) { return k.type == TaskType::WAIT ? k.rank : k.peer(); }

}  // namespace cc
