// Executing CCU words (ccu.md §5, §8, §9): one word at a time, top level or
// inside a loop body, for the A5 and A6 instruction sets.
#pragma once

#include "ccu/a5_word.h"
#include "ccu/a6_word.h"
#include "ccu/engine.h"

namespace cc::ccu {

// A register or check-bit id plus a word's offset, wrapping as the 16-bit
// hardware field does.
inline u16 off16(u16 id, u16 off) { return static_cast<u16>(id + off); }

enum class Step : u8 {
  Next,     // the word executed; the pc advances
  Jump,     // the word executed and set a new pc
  Group,    // a LoopGroup: the caller expands it
  Blocked,  // a wait is not satisfied; nothing happened
  Failed,   // the mission stops (Mission::fault)
  Ended,    // the mission reached the end of its range
};

// What a data word makes (§5.5, §6): the node (type, reduce fields) and its
// one group of slices, with the peer of its channel.
struct DataPlan {
  Node node;
  GroupSpec group;
  u32 peer = 0, peer_die = 0;
};
// Resolves the operands of a Trans or MsReduce word in `at` (length, channel,
// addresses, MS slots); false with the mission's fault set on an error.
bool plan_a5_data(Engine& en, Mission& m, const WordCtx& at, const A5Word& w, DataPlan& plan);

// A5 (§8): executes `w` in `at`; a Jmp sets `jump_to`.
Step exec_a5(Engine& en, Mission& m, WordCtx& at, const A5Word& w, u32& jump_to);
// §9.2: words allowed inside an A5 loop body.
bool a5_allowed_in_body(const A5Word& w);

// A6 (§15): the same for the A6 instruction set; a jump taken inside a
// loop body (`body`) is 111.
Step exec_a6(Engine& en, Mission& m, WordCtx& at, const A6Word& w, bool body, u32& jump_to);
bool a6_allowed_in_body(const A6Word& w);

// Starts mission `m` (START node, image, SQE checks); false if it failed.
bool start_mission(Engine& en, Mission& m);
// Runs a started mission until it blocks, fails or ends; returns whether
// it made progress (executed a word or ended).
bool run_mission(Engine& en, Mission& m);

// Loops (loops.cc): sets up the LoopGroup `w` at `at` (A5 parameter
// layout), or expands one step of the active group.
Step start_group_a5(Engine& en, Mission& m, WordCtx& at, const A5Word& w);
Step start_group_a6(Engine& en, Mission& m, WordCtx& at, const A6Word& w);
Step step_group(Engine& en, Mission& m);
// START(LOOP) or END(LOOP) of lane `lane` running `l` (copies > 1: a merged loop).
u32 loop_node(Engine& en, Mission& m, u32 lane, const LoopLane& l, CcuNodeKind kind, u32 copies = 1);

// Loop merge (loop_merge.cc, §9.6): emits all copies of the loop at
// lane g.lane (copy 0) as one lane of batch nodes if every condition holds.
enum class MergeResult : u8 { NotMerged, Merged, Failed };
MergeResult try_merge(Engine& en, Mission& m, GroupRun& g);

// Executes the word at `at.pc` of the mission's image in `at` (decoding
// it for the trace's instruction set); `body` says it is in a loop body.
Step exec_word(Engine& en, Mission& m, WordCtx& at, bool body, u32& jump_to);

}  // namespace cc::ccu
