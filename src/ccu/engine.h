// The state of one CCU expansion (ccu.md §2-§9): missions, machine state,
// nodes, findings, and the operations every instruction word is made of
// (register reads, CKE waits and posts, node emission). The per-word
// semantics are in exec_a5.cc / exec_a6.cc, loops in loops.cc, the
// scheduling against the host graph in cosim.cc.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ccu/expand.h"
#include "ccu/machine.h"
#include "ccu/nodes.h"
#include "ccu/resolve.h"
#include "model/ccu_word.h"

namespace cc::ccu {

// Why a mission stopped: the specific code of ccu.md §12 and the reason.
struct Fault {
  u16 code = 0;
  std::string what;
};

// Where one word executes: the lane (its frontier) and, inside a loop
// body, the copy's offsets (§9.3).
struct WordCtx {
  u32 pc = 0;
  u16 header = 0;
  u32 lane = 0;  // CcuNodeInfo::lane
  std::vector<u32>* frontier = nullptr;
  bool in_body = false;
  u16 cke_off = 0, ms_off = 0;
  u64 addr_add = 0;  // copy offset + iteration stride, added to every address operand
  u64 copy_add = 0, iter_add = 0;  // its two parts (A6 TransMem applies them separately)
  bool replicated = false;         // in a copy of a replicated loop (A6 address formula)
  u32 xn_off = 0;    // A6: register id offset of the copy
  u32 loop_pc = kNone;  // inside a loop body: the Loop word
  u32 copy = 0, iteration = 0;
  u8 addr_shift = 0;  // A6: address-expand coefficient of the word
};

// One loop instance of a LoopGroup (§9.3): loop i, copy e.
struct LoopLane {
  u32 loop_pc = 0;           // the Loop word
  u32 loop_index = 0;        // i
  u32 body_start = 0, body_end = 0;  // inclusive
  u32 iterations = 0;
  u64 stride = 0;
  bool replicated = false;   // i >= expandOffset
  u32 copy = 0, copies = 1;
  u16 cke_off = 0, ms_off = 0;
  u64 addr_off = 0;
  u32 xn_off = 0;            // A6
  u8 mode = 0;               // A6 Loop mode
};

// A LoopGroup being expanded; resumable at any body word (§9.5). Its lanes
// are made on demand from one entry per Loop word, so a group of many
// copies costs nothing until they run.
struct GroupRun {
  u32 group_pc = 0;
  std::vector<LoopLane> loops;      // per Loop word: its copy 0, with `copies`
  std::vector<u32> first_lane;      // lane index of loop i's copy 0
  u32 lane_count = 0;
  u16 cke_off = 0, ms_off = 0;      // per copy (replicated loops)
  u64 addr_off = 0;
  u32 xn_off = 0;
  // Lane `index` in simulation order (i ascending, e ascending).
  LoopLane lane_at(u32 index) const;
  std::vector<u32> pre_frontier;    // the frontier in front of the LoopGroup
  std::vector<u32> ends;            // END(LOOP) nodes so far
  u32 lane = 0;                     // the lane running (an index for lane_at)
  bool started = false;             // it has its START(LOOP)
  LoopLane current;                 // lane_at(lane)
  u32 lane_id = 0;                  // its CcuNodeInfo::lane
  std::vector<u32> frontier;        // its frontier
  u32 iteration = 0, body_pc = 0;
};

enum class MissionState : u8 { Waiting, Running, Blocked, Done };

struct Mission {
  u32 index = 0;
  u32 rank = 0, die = 0, key = 0;  // key: missionId
  u32 placeholder = kNone;         // host task of the first SQE
  std::vector<u32> sqes;           // indices into Trace::ccu.sqes
  std::vector<u32> records;        // host tasks of those SQEs
  u32 first_pc = 0, end_pc = 0;
  const CcuImage* image = nullptr;
  MissionState state = MissionState::Waiting;
  bool failed = false;
  Fault fault;
  WordCtx fault_at;
  u32 preds_left = 0;
  u32 pc = 0;
  u64 steps = 0;
  std::vector<u32> frontier;
  u32 start_node = kNone, end_node = kNone;
  std::unique_ptr<GroupRun> group;
  u32 next_lane = 1;
  // While blocked: the wait and where it is.
  WordCtx blocked_at;
  u16 blocked_die = 0, blocked_cke = 0, blocked_mask = 0;
  std::string blocked_on;  // A6 Wait: the register condition ("" for a CKE wait)
  std::vector<u32> data_nodes;  // data nodes of the mission (drain edges)
};

class Engine {
 public:
  Engine(Trace& trace, const CcuOptions& options, CcuCarry* carry);

  Trace& trace;
  const CcuOptions& opt;
  CcuCarry* carry;
  Machine machine;
  NodeStore store;
  AddressMap addresses;
  ChannelMap channels;
  std::vector<Mission> missions;
  std::vector<Finding> findings;
  BufId ms_buf = 0;
  u32 host_tasks = 0;  // node n becomes task host_tasks + n
  CcuExpansionStats stats;

  // --- faults and warnings ---------------------------------------------
  // Records the fault of the word in `at`; returns false for `return fail(...)`.
  bool fail(Mission& m, const WordCtx& at, u16 code, std::string what);
  // --ccu-max-steps (§5.1): true, with the mission failed (105), when it
  // has executed as many words as it may.
  bool over_budget(Mission& m, const WordCtx& at);
  // A named warning CCU-W-*, once per (tag, mission, pc).
  void warn(Mission& m, const WordCtx& at, const char* tag, std::string what);
  Finding mission_finding(u16 code, const Mission& m, std::string headline) const;
  std::string word_line(const Mission& m, u32 pc) const;

  // --- registers (§4) ----------------------------------------------------
  bool read_reg(Mission& m, const WordCtx& at, RegFile f, u16 id, u64& v);
  void write_reg(u32 rank, u32 die, RegFile f, u16 id, u64 v);
  bool sqe_arg(Mission& m, const WordCtx& at, u16 slot, u64& v);
  const CcuChannel* channel(Mission& m, const WordCtx& at, u32 id);
  // Resolves a memory operand on `rank` (§6.1): 108/110/112/105 faults.
  bool mem_slice(Mission& m, const WordCtx& at, u32 rank, u64 addr, u64 len, Slice& out);

  // --- nodes -------------------------------------------------------------
  u32 node(Mission& m, const WordCtx& at, Node n);
  u32 data_node(Mission& m, const WordCtx& at, Node n, const std::vector<GroupSpec>& groups);
  // A control node: frontier -> node, then node is the frontier (§5.3).
  void control(Mission& m, const WordCtx& at, u32 node);

  // --- CKE (§7) ----------------------------------------------------------
  bool cke_ready(const Mission& m, u16 id, u16 mask);
  // Records why the mission blocks; returns false.
  bool block(Mission& m, const WordCtx& at, u16 id, u16 mask);
  // The WAIT nodes of a satisfied wait (§7.3).
  void consume(Mission& m, const WordCtx& at, u16 id, u16 mask);
  // A post into (rank, die, id): a RECORD after `data` (completion) or, if
  // kNone, a control node on the frontier. Returns the post index.
  u32 post(Mission& m, const WordCtx& at, u32 rank, u32 die, u16 id, u16 mask, bool remote, u32 data);
  // Phase 4 (§5.2): clears the waited bits when clearType says so.
  void clear_waited(Mission& m, const WordCtx& at, u16 id, u16 mask, bool clear_type);
  // ClearCKE's own clear (§7.4).
  void clear_bits(Mission& m, const WordCtx& at, u16 id, u16 mask);

 private:
  u16 posts_bits(u32 post, u16 mask) const;
  std::set<std::tuple<std::string, u32, u32>> warned_;
};

}  // namespace cc::ccu
