// LoopGroup and Loop (ccu.md §9): every loop instance (loop i, copy e) is a
// lane that starts from the frontier in front of the LoopGroup and runs its
// iterations in order; the group ends when every lane has, and the lanes'
// END(LOOP)s become the mission's frontier. The expansion is resumable at
// any body word, so a wait inside a body blocks the mission right there
// (§9.5).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ccu/exec.h"

namespace cc::ccu {

namespace {

// The (die-local) CKE ids a lane's body sets or waits on, for §9.4's warning.
void lane_ckes(CcuIsa isa, const Mission& m, const LoopLane& l, std::vector<u16>& out) {
  for (u32 pc = l.body_start; pc <= l.body_end && pc < m.image->size; ++pc) {
    u16 wait_id = 0, wait_mask = 0, set_id = 0, set_mask = 0;
    if (isa == CcuIsa::A6) {
      A6Word w;
      if (!decode_a6(word_at(*m.image, pc), w)) continue;
      wait_id = w.wait_id, wait_mask = w.wait_mask, set_id = w.set_id, set_mask = w.set_mask;
    } else {
      A5Word w;
      if (!decode_a5(word_at(*m.image, pc), w)) continue;
      wait_id = w.cke.wait_id, wait_mask = w.cke.wait_mask, set_id = w.cke.set_id, set_mask = w.cke.set_mask;
    }
    if (wait_mask) out.push_back(static_cast<u16>(wait_id + l.cke_off));
    if (set_mask) out.push_back(static_cast<u16>(set_id + l.cke_off));
  }
}

// §9.4's warning. Bounded work: a group of very many copies of long
// bodies is checked up to kWarnWork ids (it is only a warning).
constexpr u64 kWarnWork = 1'000'000;

void warn_shared_ckes(Engine& en, Mission& m, const WordCtx& at, const GroupRun& g) {
  std::map<u16, u32> first_lane;
  u64 work = 0;
  for (u32 i = 0; i < g.lane_count && work < kWarnWork; ++i) {
    std::vector<u16> ids;
    LoopLane l = g.lane_at(i);
    lane_ckes(en.trace.ccu.isa, m, l, ids);
    work += ids.size() + 1;
    for (u16 id : ids) {
      auto [it, added] = first_lane.emplace(id, i);
      if (added || it->second == i) continue;
      LoopLane a = g.lane_at(it->second);
      en.warn(m, at, "CCU-W-LANE-CKE",
              fmt::format("loop instances (loop at pc {}, copy {}) and (loop at pc {}, copy {}) of this LoopGroup "
                          "both use cke {}: their pairing depends on the order in which the lanes are simulated",
                          a.loop_pc, a.copy, l.loop_pc, l.copy, id));
      return;
    }
  }
}

u32 loop_boundary(Engine& en, Mission& m, const GroupRun& g, CcuNodeKind kind) {
  return loop_node(en, m, g.lane_id, g.current, kind);
}

}  // namespace

namespace {

// One Loop word of a group, read with its instruction set's layout.
struct LoopParams {
  u32 start = 0, end = 0;  // body, inclusive
  u32 iterations = 0;
  u64 stride = 0;
};

// The group's parameters, common to both instruction sets.
struct GroupParams {
  u32 loops = 0, expand_offset = 0, expand_cnt = 0;
  u16 cke_off = 0, ms_off = 0;
  u64 addr_off = 0;
  u32 xn_off = 0;  // A6
};

GroupParams offsets_from(u64 offsets) {
  GroupParams p;
  p.cke_off = offsets & 0x3ff;
  p.ms_off = (offsets >> 10) & 0x7ff;
  p.addr_off = (offsets >> 21) & 0xffffffffu;
  return p;
}

// Builds the lanes (§9.3); `read_loop` reads the Loop word at a slot.
template <typename ReadLoop>
Step build_group(Engine& en, Mission& m, WordCtx& at, u32 first_loop, const GroupParams& gp, ReadLoop read_loop) {
  if (gp.loops == 0) return Step::Next;  // §9.2: the group does nothing
  auto g = std::make_unique<GroupRun>();
  g->group_pc = at.pc;
  for (u32 i = 0; i < gp.loops; ++i) {
    u32 pc = first_loop + i;
    if (pc >= m.image->size)
      return en.fail(m, at, 105, fmt::format("LoopGroup slot {} (id {}) is outside the image", i, pc)), Step::Failed;
    WordCtx lat = at;
    lat.pc = pc;
    lat.header = word_at(*m.image, pc).header();
    LoopParams lp;
    if (!read_loop(i, lat, lp)) return Step::Failed;
    if (lp.end < lp.start || lp.end >= m.image->size)
      return en.fail(m, lat, 105,
                     fmt::format("loop body [{},{}] is empty or outside the image ({} words)", lp.start, lp.end,
                                 m.image->size)),
             Step::Failed;
    bool replicated = i >= gp.expand_offset;
    LoopLane l;
    l.loop_pc = pc;
    l.loop_index = i;
    l.body_start = lp.start;
    l.body_end = lp.end;
    l.iterations = lp.iterations;
    l.stride = lp.stride;
    l.replicated = replicated;
    l.copies = replicated ? gp.expand_cnt + 1 : 1;
    g->loops.push_back(l);
    g->first_lane.push_back(g->lane_count);
    g->lane_count += l.copies;
  }
  g->cke_off = gp.cke_off;
  g->ms_off = gp.ms_off;
  g->addr_off = gp.addr_off;
  g->xn_off = gp.xn_off;
  g->pre_frontier = m.frontier;
  warn_shared_ckes(en, m, at, *g);
  m.group = std::move(g);
  return Step::Next;
}

}  // namespace

Step start_group_a5(Engine& en, Mission& m, WordCtx& at, const A5Word& w) {
  u64 group = 0, offsets = 0;
  if (!en.read_reg(m, at, RegFile::Xn, w.xn, group) || !en.read_reg(m, at, RegFile::Xn, w.xm, offsets))
    return Step::Failed;
  GroupParams gp = offsets_from(offsets);
  gp.loops = (group >> 41) & 0x7f;
  gp.expand_offset = (group >> 48) & 0x7f;
  gp.expand_cnt = (group >> 55) & 0x7f;
  return build_group(en, m, at, w.start, gp, [&](u32 i, WordCtx& lat, LoopParams& lp) {
    A5Word lw;
    Status decoded = decode_a5(word_at(*m.image, lat.pc), lw);
    if (!decoded || lw.kind != A5Kind::Loop)
      return en.fail(m, at, 111,
                     fmt::format("LoopGroup slot {} (id {}) holds no Loop word: {}", i, lat.pc,
                                 decoded ? en.word_line(m, lat.pc) : decoded.message()));
    u64 p = 0;
    if (!en.read_reg(m, lat, RegFile::Xn, lw.xn, p)) return false;
    lp = {lw.start, lw.end, static_cast<u32>(p & 0x1fff), (p >> 13) & 0xffffffffu};
    return true;
  });
}

Step start_group_a6(Engine& en, Mission& m, WordCtx& at, const A6Word& w) {
  u64 group = 0, offsets = 0, xn_offset = 0;
  if (!en.read_reg(m, at, RegFile::Xn, w.xn.id, group) || !en.read_reg(m, at, RegFile::Xn, w.xm.id, offsets) ||
      !en.read_reg(m, at, RegFile::Xn, w.xp.id, xn_offset))
    return Step::Failed;
  GroupParams gp = offsets_from(offsets);
  gp.loops = group & 0x3ff;
  gp.expand_offset = (group >> 10) & 0x1ff;
  gp.expand_cnt = (group >> 19) & 0x1ff;
  gp.xn_off = static_cast<u32>(xn_offset);
  if (gp.loops > 512 || gp.expand_cnt > 511 || gp.expand_offset > 511 || gp.expand_offset > gp.loops)
    return en.fail(m, at, 105,
                   fmt::format("LoopGroup parameters out of range: loopInsCnt {}, expandOffset {}, expandCnt {}",
                               gp.loops, gp.expand_offset, gp.expand_cnt)),
           Step::Failed;
  return build_group(en, m, at, w.start, gp, [&](u32 i, WordCtx& lat, LoopParams& lp) {
    A6Word lw;
    Status decoded = decode_a6(word_at(*m.image, lat.pc), lw);
    if (!decoded || lw.kind != A6Kind::Loop)
      return en.fail(m, at, 111,
                     fmt::format("LoopGroup slot {} (id {}) holds no Loop word: {}", i, lat.pc,
                                 decoded ? en.word_line(m, lat.pc) : decoded.message()));
    u64 iters = 0, stride = 0, ctx = 0;
    if (!en.read_reg(m, lat, RegFile::Xn, lw.xm.id, iters) || !en.read_reg(m, lat, RegFile::Xn, lw.xn.id, stride) ||
        !en.read_reg(m, lat, RegFile::Xn, lw.xp.id, ctx))
      return false;
    if (lw.loop_mode && lw.wish != (ctx & 0x1ff) + 1024)
      return en.fail(m, lat, 111,
                     fmt::format("Loop mode 1 with wishCKEBit {} (expanded only for loopCtxId + 1024 = {})", lw.wish,
                                 (ctx & 0x1ff) + 1024));
    lp = {lw.start, lw.end, static_cast<u32>(iters & 0x1fff), stride & 0xffffffffu};
    return true;
  });
}

Step step_group(Engine& en, Mission& m) {
  GroupRun& g = *m.group;
  if (g.lane == g.lane_count) {
    m.frontier = g.ends;
    m.pc = g.group_pc + 1;
    m.group.reset();
    return Step::Next;
  }
  if (!g.started) g.current = g.lane_at(g.lane);
  const LoopLane& l = g.current;
  if (!g.started) {
    if (en.opt.loop_merge && l.copy == 0 && en.trace.ccu.isa == CcuIsa::A5) {
      MergeResult r = try_merge(en, m, g);
      if (r != MergeResult::NotMerged) return r == MergeResult::Merged ? Step::Next : Step::Failed;
    }
    // Every loop instance costs one unit of the budget (§5.1), even one of
    // no iteration: its START and END are nodes, and a LoopGroup of many
    // empty instances jumped to again and again would otherwise make nodes
    // without bound while executing few words.
    WordCtx lat;
    lat.pc = l.loop_pc;
    lat.header = 0x0800;
    lat.frontier = &g.frontier;
    if (en.over_budget(m, lat)) return Step::Failed;
    ++m.steps;
    g.lane_id = m.next_lane++;
    u32 ls = loop_boundary(en, m, g, CcuNodeKind::LoopStart);
    en.store.edges_from(g.pre_frontier, ls);
    g.frontier.assign(1, ls);
    g.started = true;
    g.iteration = 0;
    g.body_pc = l.body_start;
    return Step::Next;
  }
  if (g.iteration < l.iterations) {
    WordCtx at;
    at.pc = g.body_pc;
    at.lane = g.lane_id;
    at.frontier = &g.frontier;
    at.in_body = true;
    at.cke_off = l.cke_off;
    at.ms_off = l.ms_off;
    at.copy_add = l.addr_off;
    at.iter_add = u64{g.iteration} * l.stride;
    at.addr_add = at.copy_add + at.iter_add;
    at.replicated = l.replicated;
    at.xn_off = l.xn_off;
    at.loop_pc = l.loop_pc;
    at.copy = l.copy;
    at.iteration = g.iteration;
    if (en.over_budget(m, at)) return Step::Failed;
    u32 jump = 0;
    Step s = exec_word(en, m, at, true, jump);
    if (s != Step::Next) return s == Step::Jump ? Step::Failed : s;
    ++m.steps;
    ++en.stats.steps;
    if (++g.body_pc > l.body_end) {
      g.body_pc = l.body_start;
      ++g.iteration;
    }
    return Step::Next;
  }
  u32 le = loop_boundary(en, m, g, CcuNodeKind::LoopEnd);
  en.store.edges_from(g.frontier, le);
  g.ends.push_back(le);
  ++g.lane;
  g.started = false;
  return Step::Next;
}

u32 loop_node(Engine& en, Mission& m, u32 lane, const LoopLane& l, CcuNodeKind kind, u32 copies) {
  WordCtx at;
  at.pc = l.loop_pc;
  at.header = 0x0800;
  at.lane = lane;
  Node n;
  n.type = TaskType::CCU_GRAPH;
  n.info.kind = kind;
  n.info.loop = l.loop_pc;
  n.info.copy = l.copy;
  n.info.iterations = l.iterations;
  n.info.copies = copies;
  return en.node(m, at, n);
}

LoopLane GroupRun::lane_at(u32 index) const {
  auto it = std::upper_bound(first_lane.begin(), first_lane.end(), index);
  u32 i = static_cast<u32>(it - first_lane.begin()) - 1;
  LoopLane l = loops[i];
  u32 e = index - first_lane[i];
  l.copy = e;
  if (l.replicated) {
    l.cke_off = static_cast<u16>(e * cke_off);
    l.ms_off = static_cast<u16>(e * ms_off);
    l.addr_off = e * addr_off;
    l.xn_off = e * xn_off;
  }
  return l;
}

}  // namespace cc::ccu
