// Loop merge (ccu.md §9.6, --ccu-loop-merge): all copies and iterations of
// one Loop word become one lane with one BATCH node per body data word.
// Merging must never change a verdict, so it happens only when every
// condition holds, checked on the very operands the unrolled form would
// use; otherwise the loop is unrolled. Beyond the spec's conditions
// collcheck requires [CC]:
//  * no 0x1007 (its remote MS write is read by another mission, whose
//    iterations do not line up with this batch's pairs);
//  * clearType 1 on every wait (clearType 0 leaves bits the unrolled form
//    would see again);
//  * within one walk of the body, every MS slot is written before it is
//    read (so pair k of a later batch reads exactly what pair k of an
//    earlier one wrote: the per-pair MS buckets of the semantic check);
//  * non-MS slices of different (copy, iteration) instances never overlap,
//    whatever body position they belong to (the merged form orders body
//    positions, the unrolled form orders iterations: they agree only when
//    instances share no bytes);
//  * the operands of every instance resolve without an error (an error is
//    then found, in the same order, by unrolling), and every slice lies
//    inside its buffer (stage 2 then names each faulty task, and stage 5
//    sees the same writes).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ccu/exec.h"

namespace cc::ccu {

namespace {

bool mergeable_word(const A5Word& w) {
  if (w.cke.wait_mask && !w.cke.clear_type) return false;
  switch (w.kind) {
    case A5Kind::ClearCke: return w.clear_mask == 0 && w.cke.set_mask == 0;
    case A5Kind::MsReduce: return w.cke.set_mask != 0;
    case A5Kind::Trans: return w.header <= 0x1006 && w.cke.set_mask != 0;
    default: return false;
  }
}

// Condition 3: each wait is produced by earlier sets of the same walk, and
// nothing produced is left at its end.
bool self_contained(const std::vector<A5Word>& body) {
  std::map<u16, u16> avail;
  for (const A5Word& w : body) {
    if (w.cke.wait_mask) {
      u16& a = avail[w.cke.wait_id];
      if ((a & w.cke.wait_mask) != w.cke.wait_mask) return false;
      a &= static_cast<u16>(~w.cke.wait_mask);
    }
    if (w.cke.set_mask) avail[w.cke.set_id] |= w.cke.set_mask;
  }
  return std::all_of(avail.begin(), avail.end(), [](const auto& kv) { return kv.second == 0; });
}

// Every MS slot of a walk is written before it is read; no remote MS.
bool ms_written_first(const std::vector<A5Word>& body) {
  std::set<u16> written;
  for (const A5Word& w : body) {
    if (w.kind == A5Kind::MsReduce) {
      for (u32 i = 0; i < w.operands(); ++i)
        if (!written.count(w.ms[i])) return false;
      continue;
    }
    if (w.kind != A5Kind::Trans) continue;
    if ((w.src.ms && w.src.remote) || (w.dst_op.ms && w.dst_op.remote)) return false;
    if (w.src.ms && !written.count(w.src.id)) return false;
    if (w.dst_op.ms) written.insert(w.dst_op.id);
  }
  return true;
}

// Conditions 5 and 8: the copies' CKE and MS ids are disjoint, and the CKE
// ids start clean (no bit, no pending post), so no wait can take bits from
// outside the lane.
bool copies_disjoint_and_clean(Engine& en, const Mission& m, const std::vector<A5Word>& body, const GroupRun& g,
                               u32 first, u32 copies) {
  std::map<u16, u32> cke_copy, ms_copy;
  DieState& ds = en.machine.die(m.rank, m.die);
  for (u32 e = 0; e < copies; ++e) {
    LoopLane l = g.lane_at(first + e);
    auto use = [&](std::map<u16, u32>& owner, u16 id) {
      auto [it, added] = owner.emplace(id, e);
      return added || it->second == e;
    };
    for (const A5Word& w : body) {
      for (auto [mask, id] : {std::pair{w.cke.wait_mask, w.cke.wait_id}, {w.cke.set_mask, w.cke.set_id}}) {
        if (!mask) continue;
        u16 cke = static_cast<u16>(id + l.cke_off);
        if (!use(cke_copy, cke) || ds.cke_value(cke) != 0) return false;
        if (auto live = ds.live.find(cke); live != ds.live.end() && !live->second.empty()) return false;
      }
      std::vector<u16> ms;
      if (w.kind == A5Kind::MsReduce) ms.assign(w.ms, w.ms + w.operands());
      if (w.kind == A5Kind::Trans) {
        if (w.src.ms) ms.push_back(w.src.id);
        if (w.dst_op.ms) ms.push_back(w.dst_op.id);
      }
      for (u16 id : ms)
        if (!use(ms_copy, static_cast<u16>(id + l.ms_off))) return false;
    }
  }
  return true;
}

// Condition 7 (strengthened): non-MS slices of different instances are disjoint.
bool instances_disjoint(const std::vector<std::vector<DataPlan>>& plans, BufId ms) {
  struct Access {
    u32 rank;
    BufId buf;
    u64 begin, end;
    u32 instance;
  };
  std::vector<Access> acc;
  for (const auto& position : plans)
    for (u32 k = 0; k < position.size(); ++k) {
      const GroupSpec& g = position[k].group;
      auto add = [&](const Slice& s) {
        if (s.buf != ms) acc.push_back({s.rank, s.buf, s.offset, s.offset + s.len, k});
      };
      add(g.dst);
      for (const Slice& s : g.srcs) add(s);
    }
  std::sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) {
    return std::tie(a.rank, a.buf, a.begin) < std::tie(b.rank, b.buf, b.begin);
  });
  // Sweep: the access reaching farthest so far; any overlap with another
  // instance shows up against it.
  for (std::size_t i = 1, far = 0; i < acc.size(); ++i) {
    const Access& a = acc[i];
    const Access& f = acc[far];
    if (a.rank == f.rank && a.buf == f.buf && a.begin < f.end && a.instance != f.instance) return false;
    if (a.rank != f.rank || a.buf != f.buf || a.end > f.end) far = i;
  }
  return true;
}

bool inside(const Trace& t, BufId ms, const GroupSpec& g) {
  auto ok = [&](const Slice& s) {
    u64 size = t.buffer_size(s.rank, s.buf);
    u64 limit = BufferSizes::end_limit(size);
    return size != BufferSizes::kUndeclared && s.offset <= limit && s.len <= limit - s.offset &&
           (s.buf != ms || s.len <= kCcuMsSlotBytes);
  };
  return ok(g.dst) && std::all_of(g.srcs.begin(), g.srcs.end(), ok);
}

}  // namespace

MergeResult try_merge(Engine& en, Mission& m, GroupRun& g) {
  const LoopLane l0 = g.lane_at(g.lane);
  u32 copies = l0.copies, iters = l0.iterations;
  if (iters == 0) return MergeResult::NotMerged;  // condition 1
  u32 len = l0.body_end - l0.body_start + 1;
  std::vector<A5Word> body(len);
  for (u32 p = 0; p < len; ++p) {
    if (!decode_a5(word_at(*m.image, l0.body_start + p), body[p]) || !mergeable_word(body[p]))
      return MergeResult::NotMerged;  // conditions 2 and 4
  }
  if (!self_contained(body) || !ms_written_first(body) ||
      !copies_disjoint_and_clean(en, m, body, g, g.lane, copies))
    return MergeResult::NotMerged;
  u64 words = u64{copies} * iters * len;
  u64 cost = words + copies;  // the budget's units: words and loop instances (§5.1)
  if (m.steps + cost > en.opt.max_steps) return MergeResult::NotMerged;  // unrolling meets the budget

  // The operands of every instance, in pair order (copy, then iteration).
  auto ctx = [&](u32 e, u32 t, u32 p) {
    LoopLane l = g.lane_at(g.lane + e);
    WordCtx at;
    at.pc = l.body_start + p;
    at.header = body[p].header;
    at.in_body = true;
    at.cke_off = l.cke_off;
    at.ms_off = l.ms_off;
    at.addr_add = l.addr_off + u64{t} * l.stride;
    at.loop_pc = l.loop_pc;
    at.copy = e;
    at.iteration = t;
    return at;
  };
  std::vector<std::vector<DataPlan>> plans(len);
  bool failed = m.failed;
  Fault fault = m.fault;
  WordCtx fault_at = m.fault_at;
  for (u32 p = 0; p < len; ++p) {
    if (!body[p].is_data()) continue;
    for (u32 e = 0; e < copies; ++e)
      for (u32 t = 0; t < iters; ++t) {
        DataPlan plan;
        if (!plan_a5_data(en, m, ctx(e, t, p), body[p], plan)) {
          m.failed = failed, m.fault = fault, m.fault_at = fault_at;
          return MergeResult::NotMerged;
        }
        if (!inside(en.trace, en.ms_buf, plan.group)) return MergeResult::NotMerged;
        plans[p].push_back(std::move(plan));
      }
  }
  if (!instances_disjoint(plans, en.ms_buf)) return MergeResult::NotMerged;

  // Emit: START(LOOP); per body word its WAITs (copy 0's ids), one batch,
  // its completion RECORD; END(LOOP).
  u32 lane = m.next_lane++;
  std::vector<u32> frontier;
  WordCtx at = ctx(0, 0, 0);
  at.lane = lane;
  at.frontier = &frontier;
  u32 ls = loop_node(en, m, lane, l0, CcuNodeKind::LoopStart, copies);
  en.store.edges_from(g.pre_frontier, ls);
  frontier.assign(1, ls);
  for (u32 p = 0; p < len; ++p) {
    const A5Word& w = body[p];
    at.pc = l0.body_start + p;
    at.header = w.header;
    if (w.cke.wait_mask) {
      if (!en.cke_ready(m, w.cke.wait_id, w.cke.wait_mask)) {
        en.fail(m, at, 113,
                fmt::format("merged loop at pc {}: the wait on cke {} bits {:#x} cannot be processed although the "
                            "merge precheck passed",
                            l0.loop_pc, w.cke.wait_id, w.cke.wait_mask));
        return MergeResult::Failed;
      }
      en.consume(m, at, w.cke.wait_id, w.cke.wait_mask);
    }
    if (w.is_data()) {
      Node n = plans[p].front().node;
      n.type = n.type == TaskType::REDUCE ? TaskType::BATCH_REDUCE : TaskType::BATCH_TRANS_MEM;
      std::vector<GroupSpec> groups;
      groups.reserve(plans[p].size());
      for (DataPlan& d : plans[p]) groups.push_back(std::move(d.group));
      u32 batch = en.data_node(m, at, n, groups);
      en.post(m, at, m.rank, m.die, w.cke.set_id, w.cke.set_mask, false, batch);
    }
    en.clear_waited(m, at, w.cke.wait_id, w.cke.wait_mask, w.cke.clear_type);
  }
  u32 le = loop_node(en, m, lane, l0, CcuNodeKind::LoopEnd, copies);
  en.store.edges_from(frontier, le);
  g.ends.push_back(le);
  g.lane += copies;
  g.started = false;
  m.steps += cost;
  en.stats.steps += words;
  ++en.stats.merged_loops;
  return MergeResult::Merged;
}

}  // namespace cc::ccu
