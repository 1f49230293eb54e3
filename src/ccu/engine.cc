#include "ccu/engine.h"

#include <fmt/format.h>

#include <algorithm>

#include "ccu/disasm.h"
#include "model/describe.h"

namespace cc::ccu {

Engine::Engine(Trace& t, const CcuOptions& o, CcuCarry* c)
    : trace(t), opt(o), carry(c), addresses(t), channels(t.ccu.channels), host_tasks(static_cast<u32>(t.tasks.size())) {}

// --- faults and warnings ------------------------------------------------------

bool Engine::fail(Mission& m, const WordCtx& at, u16 code, std::string what) {
  if (!m.failed) {
    m.failed = true;
    m.fault = {code, std::move(what)};
    m.fault_at = at;
  }
  return false;
}

bool Engine::over_budget(Mission& m, const WordCtx& at) {
  if (m.steps < opt.max_steps) return false;
  fail(m, at, 105,
       fmt::format("executed {} words (a loop instance counts as one) without reaching the end of the mission "
                   "(--ccu-max-steps)",
                   m.steps));
  return true;
}

Finding Engine::mission_finding(u16 code, const Mission& m, std::string headline) const {
  Finding f = make_finding(code, StageTag::GenGraph, std::move(headline));
  if (m.placeholder != kNone) f.tasks.push_back(m.placeholder);
  return f;
}

std::string Engine::word_line(const Mission& m, u32 pc) const {
  if (!m.image || pc >= m.image->size) return fmt::format("pc {} (outside the image)", pc);
  Word w = word_at(*m.image, pc);
  return fmt::format("pc {}  {:04x}  {}", pc, w.header(), disasm(trace.ccu.isa, w));
}

void Engine::warn(Mission& m, const WordCtx& at, const char* tag, std::string what) {
  if (!warned_.emplace(tag, m.index, at.pc).second) return;
  Finding f = mission_finding(0, m, fmt::format("CCU rank {} die {} mission {}, pc {}: {}.", m.rank, m.die, m.key,
                                                at.pc, what));
  f.tag = tag;
  f.severity = Severity::Warning;
  f.details.push_back("Word    : " + word_line(m, at.pc));
  if (m.placeholder != kNone) f.details.push_back("Mission : " + task_line(trace, m.placeholder));
  findings.push_back(std::move(f));
}

// --- registers ----------------------------------------------------------------

bool Engine::read_reg(Mission& m, const WordCtx& at, RegFile f, u16 id, u64& v) {
  DieState& ds = machine.die(m.rank, m.die);
  auto& file = f == RegFile::Gsa ? ds.gsa : ds.xn;
  auto it = file.find(id);
  if (it == file.end())
    return fail(m, at, 108,
                fmt::format("reads {}{}, which was never written on rank {} die {}", f == RegFile::Gsa ? "G" : "X",
                            id, m.rank, m.die));
  v = it->second;
  return true;
}

void Engine::write_reg(u32 rank, u32 die, RegFile f, u16 id, u64 v) {
  DieState& ds = machine.die(rank, die);
  (f == RegFile::Gsa ? ds.gsa : ds.xn)[id] = v;
}

bool Engine::sqe_arg(Mission& m, const WordCtx& at, u16 slot, u64& v) {
  for (u32 s : m.sqes) {
    const CcuSqe& q = trace.ccu.sqes[s];
    if (at.pc < q.inst_start || at.pc >= u32{q.inst_start} + q.inst_count) continue;
    if (slot >= kCcuSqeArgs)
      return fail(m, at, 107, fmt::format("reads SQE argument slot {}; an SQE has {} slots", slot, kCcuSqeArgs));
    if (slot >= q.arg_size)
      return fail(m, at, 107,
                  fmt::format("reads SQE argument slot {}, but the SQE launching it (instructions [{},{})) has "
                              "argSize {}",
                              slot, q.inst_start, u32{q.inst_start} + q.inst_count, q.arg_size));
    v = q.args[slot];
    return true;
  }
  return fail(m, at, 107, "loads an SQE argument, but no SQE of the mission launches this instruction");
}

const CcuChannel* Engine::channel(Mission& m, const WordCtx& at, u32 id) {
  const CcuChannel* c = channels.find(m.rank, m.die, id);
  if (!c) fail(m, at, 107, fmt::format("uses channel {} of rank {} die {}, which is not in the channel table", id,
                                       m.rank, m.die));
  return c;
}

bool Engine::mem_slice(Mission& m, const WordCtx& at, u32 rank, u64 addr, u64 len, Slice& out) {
  Result<Slice> slice = addresses.resolve(rank, addr, len);
  if (slice) {
    out = *slice;
    return true;
  }
  return fail(m, at, addresses.fault_code(addr),
              fmt::format("{} (operand expected on rank {})", slice.error().message, rank));
}

// --- nodes ----------------------------------------------------------------------

u32 Engine::node(Mission& m, const WordCtx& at, Node n) {
  n.mission = m.index;
  n.rank = m.rank;
  n.info.pc = at.pc;
  n.info.header = at.header;
  n.info.lane = at.lane;
  ++stats.nodes;
  return store.add(n);
}

u32 Engine::data_node(Mission& m, const WordCtx& at, Node n, const std::vector<GroupSpec>& groups) {
  n.mission = m.index;
  n.rank = m.rank;
  n.info.kind = CcuNodeKind::Data;
  n.info.pc = at.pc;
  n.info.header = at.header;
  n.info.lane = at.lane;
  ++stats.nodes;
  u32 id = store.add_data(n, groups);
  store.edges_from(*at.frontier, id);
  m.data_nodes.push_back(id);
  return id;
}

void Engine::control(Mission&, const WordCtx& at, u32 n) {
  store.edges_from(*at.frontier, n);
  at.frontier->assign(1, n);
}

// --- CKE ------------------------------------------------------------------------

bool Engine::cke_ready(const Mission& m, u16 id, u16 mask) {
  if (mask == 0) return true;
  return (machine.die(m.rank, m.die).cke_value(id) & mask) == mask;
}

bool Engine::block(Mission& m, const WordCtx& at, u16 id, u16 mask) {
  m.blocked_at = at;
  m.blocked_die = static_cast<u16>(m.die);
  m.blocked_cke = id;
  m.blocked_mask = mask;
  m.blocked_on.clear();
  return false;
}

void Engine::consume(Mission& m, const WordCtx& at, u16 id, u16 mask) {
  if (mask == 0) return;
  DieState& ds = machine.die(m.rank, m.die);
  std::vector<u32> contributors[2];  // remote, local
  u16 bits[2] = {0, 0};
  auto live = ds.live.find(id);
  if (live != ds.live.end())
    for (u32 p : live->second) {
      u16 b = posts_bits(p, mask);
      if (!b) continue;
      int side = machine.posts[p].remote ? 0 : 1;
      contributors[side].push_back(p);
      bits[side] |= b;
    }
  for (int side = 0; side < 2; ++side) {
    if (contributors[side].empty()) continue;
    Node w;
    w.type = TaskType::WAIT;
    w.flags = kTaskPrematched;
    w.peer = store.nodes[machine.posts[contributors[side][0]].node].rank;
    w.notify = id;
    w.info.kind = CcuNodeKind::Wait;
    w.info.die = static_cast<u8>(m.die);
    w.info.cke = id;
    w.info.mask = bits[side];
    u32 n = node(m, at, w);
    control(m, at, n);
    for (u32 p : contributors[side]) store.edge(machine.posts[p].node, n);
  }
  for (auto& side : contributors)
    for (u32 p : side) {
      Post& post = machine.posts[p];
      post.remaining &= static_cast<u16>(~mask);
      post.consumed = true;
    }
  if (live != ds.live.end())
    std::erase_if(live->second, [&](u32 p) { return machine.posts[p].remaining == 0; });
  u16 orphan = static_cast<u16>(mask & ~(bits[0] | bits[1]));
  auto carried = ds.carried.find(id);
  if (orphan && carried != ds.carried.end() && (carried->second & orphan))
    warn(m, at, "CCU-W-ORPHAN-BITS",
         fmt::format("waits on cke {} bits {:#x} that an earlier operator left set: no post, no edge", id,
                     carried->second & orphan));
}

u16 Engine::posts_bits(u32 p, u16 mask) const { return machine.posts[p].remaining & mask; }

u32 Engine::post(Mission& m, const WordCtx& at, u32 rank, u32 die, u16 id, u16 mask, bool remote, u32 data) {
  Node r;
  r.type = TaskType::RECORD;
  r.flags = kTaskPrematched;
  r.peer = rank;
  r.notify = id;
  r.info.kind = CcuNodeKind::Record;
  r.info.die = static_cast<u8>(die);
  r.info.cke = id;
  r.info.mask = mask;
  u32 n = node(m, at, r);
  if (data != kNone) store.edge(data, n);
  else control(m, at, n);
  Post p;
  p.node = n;
  p.rank = rank;
  p.die = die;
  p.cke = id;
  p.mask = p.remaining = mask;
  p.remote = remote;
  p.data = data != kNone;
  p.data_node = data;
  p.mission = m.index;
  p.pc = at.pc;
  p.header = at.header;
  u32 index = static_cast<u32>(machine.posts.size());
  machine.posts.push_back(p);
  DieState& ds = machine.die(rank, die);
  ds.live[id].push_back(index);
  ds.cke[id] |= mask;
  return index;
}

void Engine::clear_waited(Mission& m, const WordCtx& at, u16 id, u16 mask, bool clear_type) {
  if (mask == 0) return;
  if (!clear_type) {
    warn(m, at, "CCU-W-CLEARTYPE0",
         fmt::format("clearType 0 keeps the waited bits {:#x} of cke {} set; their meaning for later waits is "
                     "not documented",
                     mask, id));
    return;
  }
  DieState& ds = machine.die(m.rank, m.die);
  ds.cke[id] &= static_cast<u16>(~mask);
  if (auto it = ds.carried.find(id); it != ds.carried.end()) it->second &= static_cast<u16>(~mask);
}

void Engine::clear_bits(Mission& m, const WordCtx& at, u16 id, u16 mask) {
  DieState& ds = machine.die(m.rank, m.die);
  ds.cke[id] &= static_cast<u16>(~mask);
  if (auto it = ds.carried.find(id); it != ds.carried.end()) it->second &= static_cast<u16>(~mask);
  auto live = ds.live.find(id);
  if (live == ds.live.end()) return;
  for (u32 p : live->second) {
    Post& post = machine.posts[p];
    if (!(post.remaining & mask)) continue;
    post.remaining &= static_cast<u16>(~mask);
    if (post.remaining == 0 && !post.consumed)
      warn(m, at, "CCU-W-CLEARED-POST",
           fmt::format("clears cke {} bits {:#x}, retiring the post of pc {} that no wait consumed", id, mask,
                       post.pc));
  }
  std::erase_if(live->second, [&](u32 p) { return machine.posts[p].remaining == 0; });
}

}  // namespace cc::ccu
