// Per-word semantics of the A5 instruction set (ccu.md §8), in the phases
// of §5.2: wait (block or WAIT nodes), effect, set, clear. Everything that
// can fail is checked before the first node of the word is made, so a
// failing word leaves no half-built nodes behind.
#include <fmt/format.h>

#include "ccu/exec.h"
#include "model/ccu_names.h"

namespace cc::ccu {

namespace {

constexpr u64 kUbMaxBytes = u64{256} << 20;  // 0x1008/0x1009/0x100a (§6.1)

// Phase 1: false (the mission blocks) unless the wait is satisfied.
bool ready(Engine& en, Mission& m, const WordCtx& at, u16 id, u16 mask) {
  if (en.cke_ready(m, id, mask)) return true;
  return en.block(m, at, id, mask);
}

// A memory or MS operand of a transfer on `rank`.
bool operand(Engine& en, Mission& m, const WordCtx& at, const A5Operand& op, u32 rank, u64 len, Slice& out) {
  if (op.ms) {
    out = ms_slice(rank, en.ms_buf, off16(op.id, at.ms_off), len);
    return true;
  }
  u64 g = 0;
  if (!en.read_reg(m, at, RegFile::Gsa, op.id, g)) return false;
  return en.mem_slice(m, at, rank, g + at.addr_add, len, out);
}

bool length(Engine& en, Mission& m, const WordCtx& at, u16 xn, u64& len) {
  if (!en.read_reg(m, at, RegFile::Xn, xn, len)) return false;
  if (len == 0) return en.fail(m, at, 105, fmt::format("transfers 0 bytes (X{} = 0)", xn));
  return true;
}

// Phase 3 of a data word: its own set (completion) or the unobserved warning.
void completion(Engine& en, Mission& m, const WordCtx& at, const CkeFields& c, u32 data) {
  if (c.set_mask) {
    en.post(m, at, m.rank, m.die, off16(c.set_id, at.cke_off), c.set_mask, false, data);
    return;
  }
  en.warn(m, at, "CCU-W-UNOBSERVED",
          "the transfer sets no CKE bit, so nothing can observe its completion and no later word is ordered "
          "after it");
}

Step data_word(Engine& en, Mission& m, WordCtx& at, const A5Word& w) {
  u16 wait_id = off16(w.cke.wait_id, at.cke_off);
  if (!ready(en, m, at, wait_id, w.cke.wait_mask)) return Step::Blocked;
  DataPlan plan;
  if (!plan_a5_data(en, m, at, w, plan)) return Step::Failed;
  en.consume(m, at, wait_id, w.cke.wait_mask);
  u32 n = en.data_node(m, at, plan.node, {plan.group});
  completion(en, m, at, w.cke, n);
  if (w.rmt_set_mask)
    en.post(m, at, plan.peer, plan.peer_die, off16(w.rmt_set_id, at.cke_off), w.rmt_set_mask, true, n);
  en.clear_waited(m, at, wait_id, w.cke.wait_mask, w.cke.clear_type);
  return Step::Next;
}

// SetCKE, ClearCKE (§7.2, §7.4).
Step cke_word(Engine& en, Mission& m, WordCtx& at, const A5Word& w) {
  if (en.opt.strict_ref && w.kind == A5Kind::SetCke && !w.cke.clear_type)
    return en.fail(m, at, 111, "SetCKE with clearType 0 (rejected as the reference does: --ccu-strict-ref)"),
           Step::Failed;
  if (en.opt.strict_ref && w.kind == A5Kind::ClearCke && w.clear_mask)
    return en.fail(m, at, 111, "ClearCKE with a non-zero clearMask (rejected as the reference does: --ccu-strict-ref)"),
           Step::Failed;
  u16 wait_id = off16(w.cke.wait_id, at.cke_off);
  if (!ready(en, m, at, wait_id, w.cke.wait_mask)) return Step::Blocked;
  en.consume(m, at, wait_id, w.cke.wait_mask);
  if (w.kind == A5Kind::ClearCke && w.clear_mask) en.clear_bits(m, at, off16(w.clear_id, at.cke_off), w.clear_mask);
  if (w.cke.set_mask) {
    u32 p = en.post(m, at, m.rank, m.die, off16(w.cke.set_id, at.cke_off), w.cke.set_mask, false, kNone);
    en.machine.posts[p].control_set = w.kind == A5Kind::SetCke;
  }
  en.clear_waited(m, at, wait_id, w.cke.wait_mask, w.cke.clear_type);
  return Step::Next;
}

// SyncCKE, SyncGSA, SyncXn: a remote effect through a channel.
Step sync_word(Engine& en, Mission& m, WordCtx& at, const A5Word& w) {
  if (!ready(en, m, at, w.cke.wait_id, w.cke.wait_mask)) return Step::Blocked;
  const CcuChannel* c = en.channel(m, at, w.channel);
  if (!c) return Step::Failed;
  RegFile f = w.kind == A5Kind::SyncGsa ? RegFile::Gsa : RegFile::Xn;
  u64 value = 0;
  if (w.kind != A5Kind::SyncCke && !en.read_reg(m, at, f, w.loc_reg, value)) return Step::Failed;
  en.consume(m, at, w.cke.wait_id, w.cke.wait_mask);
  if (w.kind == A5Kind::SyncCke) {
    DieState& ds = en.machine.die(m.rank, m.die);
    u16 bits = ds.cke_value(w.loc_cke) & w.loc_mask;
    if (auto live = ds.live.find(w.loc_cke); live != ds.live.end())
      for (u32 p : live->second)
        if (en.machine.posts[p].remaining & bits) en.machine.posts[p].read_by_sync = true;
    if (bits) {
      en.post(m, at, c->peer_rank, c->peer_die, w.rmt_cke, bits, true, kNone);
    } else {
      en.warn(m, at, "CCU-W-SYNC-EMPTY",
              fmt::format("sends cke {} & {:#x}, which is 0: the peer receives no bit", w.loc_cke, w.loc_mask));
    }
  } else {
    en.write_reg(c->peer_rank, c->peer_die, f, w.rmt_reg, value);
    if (w.rmt_set_mask) en.post(m, at, c->peer_rank, c->peer_die, w.rmt_set_id, w.rmt_set_mask, true, kNone);
  }
  if (w.cke.set_mask) en.post(m, at, m.rank, m.die, w.cke.set_id, w.cke.set_mask, false, kNone);
  en.clear_waited(m, at, w.cke.wait_id, w.cke.wait_mask, w.cke.clear_type);
  return Step::Next;
}

}  // namespace

bool plan_a5_data(Engine& en, Mission& m, const WordCtx& at, const A5Word& w, DataPlan& plan) {
  u64 len = 0;
  if (!length(en, m, at, w.len_xn, len)) return false;
  plan.node = Node{};
  plan.peer = m.rank;
  plan.peer_die = m.die;
  if (w.kind == A5Kind::MsReduce) {
    plan.group.dst = ms_slice(m.rank, en.ms_buf, off16(w.ms[0], at.ms_off), len);
    plan.group.srcs.clear();
    for (u32 i = 1; i < w.operands(); ++i)
      plan.group.srcs.push_back(ms_slice(m.rank, en.ms_buf, off16(w.ms[i], at.ms_off), len));
    plan.node.type = TaskType::REDUCE;
    plan.node.data_type = w.ms_type;
    plan.node.reduce_op = w.ms_op;
    if (w.cast_en) plan.node.flags |= kTaskSemanticUnchecked;  // the output element size changes (§3.4)
    return true;
  }
  if (w.header >= 0x1008 && len > kUbMaxBytes)
    return en.fail(m, at, 105, fmt::format("transfers {:#x} bytes, more than 256 MiB", len));
  if (w.uses_channel) {
    const CcuChannel* c = en.channel(m, at, w.channel);
    if (!c) return false;
    plan.peer = c->peer_rank;
    plan.peer_die = c->peer_die;
  }
  Slice src, dst;
  if (!operand(en, m, at, w.src, w.src.remote ? plan.peer : m.rank, len, src)) return false;
  if (!operand(en, m, at, w.dst_op, w.dst_op.remote ? plan.peer : m.rank, len, dst)) return false;
  plan.group.srcs.assign(1, src);
  plan.group.dst = dst;
  plan.node.type = w.reduce_en ? TaskType::REDUCE : TaskType::TRANS_MEM;
  plan.node.data_type = w.reduce_en ? w.reduce_type : en.trace.op.data_type;
  plan.node.reduce_op = w.reduce_op;
  return true;
}

bool a5_allowed_in_body(const A5Word& w) {
  if (w.kind == A5Kind::ClearCke || w.kind == A5Kind::MsReduce) return true;
  return w.kind == A5Kind::Trans && w.header <= 0x1007;
}

Step exec_a5(Engine& en, Mission& m, WordCtx& at, const A5Word& w, u32& jump_to) {
  switch (w.kind) {
    case A5Kind::LoadSqeArg: {
      u64 v = 0;
      if (!en.sqe_arg(m, at, w.slot, v)) return Step::Failed;
      en.write_reg(m.rank, m.die, w.dst_file, w.dst, v);
      return Step::Next;
    }
    case A5Kind::LoadImm:
      en.write_reg(m.rank, m.die, w.dst_file, w.dst, w.imm);
      return Step::Next;
    case A5Kind::LoadAdd: {
      u64 a = 0, b = 0;
      if (!en.read_reg(m, at, w.a_file, w.a, a) || !en.read_reg(m, at, w.b_file, w.b, b)) return Step::Failed;
      en.write_reg(m.rank, m.die, w.dst_file, w.dst, a + b);
      return Step::Next;
    }
    case A5Kind::Loop:
      en.fail(m, at, 111, "a Loop word executed directly (Loop words run only through a LoopGroup)");
      return Step::Failed;
    case A5Kind::LoopGroup:
      return Step::Group;
    case A5Kind::Jmp: {
      u64 cond = 0, dst = 0;
      if (!en.read_reg(m, at, RegFile::Xn, w.cond_xn, cond)) return Step::Failed;
      if (cond == w.expect) return Step::Next;
      if (!en.read_reg(m, at, RegFile::Xn, w.dst_xn, dst)) return Step::Failed;
      if (dst > 0xffffffffu)
        return en.fail(m, at, 105, fmt::format("jumps to {:#x}, outside the image", dst)), Step::Failed;
      jump_to = static_cast<u32>(dst);
      return Step::Jump;
    }
    case A5Kind::SetCke:
    case A5Kind::ClearCke:
      return cke_word(en, m, at, w);
    case A5Kind::SyncCke:
    case A5Kind::SyncGsa:
    case A5Kind::SyncXn:
      return sync_word(en, m, at, w);
    case A5Kind::Trans:
    case A5Kind::MsReduce:
      return data_word(en, m, at, w);
  }
  return Step::Failed;
}

Step exec_word(Engine& en, Mission& m, WordCtx& at, bool body, u32& jump_to) {
  Word word = word_at(*m.image, at.pc);
  at.header = word.header();
  if (en.trace.ccu.isa == CcuIsa::A6) {
    A6Word w;
    if (Status s = decode_a6(word, w); !s) return en.fail(m, at, 111, s.message()), Step::Failed;
    if (body && !a6_allowed_in_body(w))
      return en.fail(m, at, 111,
                     fmt::format("{} is not allowed inside a loop body", ccu_mnemonic(CcuIsa::A6, w.header))),
             Step::Failed;
    Step s = exec_a6(en, m, at, w, body, jump_to);
    return s == Step::Group ? start_group_a6(en, m, at, w) : s;
  }
  A5Word w;
  if (Status s = decode_a5(word, w); !s) return en.fail(m, at, 111, s.message()), Step::Failed;
  if (body && !a5_allowed_in_body(w))
    return en.fail(m, at, 111, fmt::format("{} is not allowed inside a loop body", ccu_mnemonic(CcuIsa::A5, w.header))),
           Step::Failed;
  Step s = exec_a5(en, m, at, w, jump_to);
  if (s == Step::Group) return start_group_a5(en, m, at, w);
  return s;
}

}  // namespace cc::ccu
