// Per-word semantics of the A6 instruction set (ccu.md §15). Where the
// reference checker behaves differently and no document settles it,
// collcheck follows §15's [CC] choices and warns CCU-W-A6-UNCERTAIN the
// first time a program depends on the difference (docs/DESIGN.md).
#include <fmt/format.h>

#include <bit>

#include "ccu/a6_word.h"
#include "ccu/exec.h"
#include "model/ccu_names.h"

namespace cc::ccu {

namespace {

constexpr u32 kXnCount = 16384;  // register indices 0..16383 (§15.2 LoadX)

// Die register map (§15.4): offsets from a die's base.
constexpr u64 kXnBase = 0x100000, kCkeBase = 0x140000, kMapEnd = 0x188000;

void uncertain(Engine& en, Mission& m, const WordCtx& at, std::string what) {
  en.warn(m, at, "CCU-W-A6-UNCERTAIN", std::move(what));
}

bool reg_id(Engine& en, Mission& m, const WordCtx& at, Reg r, u32& id) {
  id = u32{r.id} + (r.per_copy ? at.xn_off : 0);
  if (id < kXnCount) return true;
  return en.fail(m, at, 109, fmt::format("register index {} is outside 0..{}", id, kXnCount - 1));
}

bool rd(Engine& en, Mission& m, const WordCtx& at, Reg r, u64& v) {
  u32 id = 0;
  return reg_id(en, m, at, r, id) && en.read_reg(m, at, RegFile::Xn, static_cast<u16>(id), v);
}

bool rd_index(Engine& en, Mission& m, const WordCtx& at, u64 index, u64& v) {
  if (index >= kXnCount)
    return en.fail(m, at, 109, fmt::format("computed register index {:#x} is outside 0..{}", index, kXnCount - 1));
  return en.read_reg(m, at, RegFile::Xn, static_cast<u16>(index), v);
}

bool wr(Engine& en, Mission& m, const WordCtx& at, Reg r, u64 v) {
  u32 id = 0;
  if (!reg_id(en, m, at, r, id)) return false;
  en.write_reg(m.rank, m.die, RegFile::Xn, static_cast<u16>(id), v);
  return true;
}

bool wr_index(Engine& en, Mission& m, const WordCtx& at, u64 index, u64 v) {
  if (index >= kXnCount)
    return en.fail(m, at, 109, fmt::format("computed register index {:#x} is outside 0..{}", index, kXnCount - 1));
  en.write_reg(m.rank, m.die, RegFile::Xn, static_cast<u16>(index), v);
  return true;
}

// Registers [first, first + count) all exist. Both come from registers, so
// the sum may wrap: compared without adding (a wrapped sum would let Store
// allocate an entry of `count` registers before reading any).
bool reg_range_ok(u64 first, u64 count) { return first <= kXnCount && count <= kXnCount - first; }

bool compare(u8 op, u64 a, u64 b) {
  switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a > b;
    case 3: return a >= b;
    case 4: return a < b;
    case 5: return a <= b;
    default: return true;  // the encoder's "always" (6) and anything else
  }
}

// A CCU register address on `rank` (§15.4): which die, and Xn or CKE.
struct RegAddr {
  u32 die = 0;
  bool cke = false;
  u32 index = 0;
};
bool decode_reg_addr(Engine& en, Mission& m, const WordCtx& at, u32 rank, u64 addr, RegAddr& out) {
  bool any = false;
  for (const CcuDieBase& b : en.trace.ccu.die_bases) {
    if (b.rank != rank) continue;
    any = true;
    if (addr < b.base + kXnBase || addr >= b.base + kMapEnd) continue;
    u64 off = addr - b.base;
    out.die = b.die;
    if (off < kCkeBase + 0x8000 && off % 8 == 0) {
      out.cke = off >= kCkeBase;
      out.index = static_cast<u32>((off - (out.cke ? kCkeBase : kXnBase)) / 8);
      if (!out.cke || out.index <= 0xffff) return true;
    }
    return en.fail(m, at, 111,
                   fmt::format("register address {:#x} of rank {} die {} is not an Xn or CKE register (offset {:#x})",
                               addr, rank, b.die, off));
  }
  if (!any) return en.fail(m, at, 109, fmt::format("no CCU die base address is known for rank {}", rank));
  return en.fail(m, at, 110, fmt::format("address {:#x} is inside no CCU register range of rank {}", addr, rank));
}

// Phase 3 of a non-data word: its own set, a control RECORD.
void control_set(Engine& en, Mission& m, const WordCtx& at, const A6Word& w) {
  if (w.set_mask) en.post(m, at, m.rank, m.die, off16(w.set_id, at.cke_off), w.set_mask, false, kNone);
}

// The address of a local-transfer operand: register + loop offsets shifted
// by the coefficient in bits [54:53] of its token register (§15.3).
bool local_addr(Engine& en, Mission& m, const WordCtx& at, Reg addr_reg, Reg token, u64& out) {
  u64 base = 0, tok = 0;
  if (!rd(en, m, at, addr_reg, base) || !rd(en, m, at, token, tok)) return false;
  u8 c = static_cast<u8>((tok >> 53) & 3);
  u64 loop = at.replicated ? at.copy_add + at.iter_add : at.iter_add;
  out = base + (loop << c);
  if (c && loop)
    uncertain(en, m, at,
              fmt::format("the address-expand coefficient {} (token bits [54:53]) scales the loop offsets; its meaning "
                          "is not documented{}",
                          c, at.replicated ? "" : ", and the reference shifts the whole address in a non-replicated loop"));
  return true;
}

bool length(Engine& en, Mission& m, const WordCtx& at, Reg xl, u64& len) {
  if (!rd(en, m, at, xl, len)) return false;
  if (len == 0) return en.fail(m, at, 105, fmt::format("transfers 0 bytes (X{} = 0)", xl.id));
  return true;
}

bool plan_trans(Engine& en, Mission& m, const WordCtx& at, const A6Word& w, DataPlan& p) {
  u64 len = 0, ignored = 0;
  if (!length(en, m, at, w.xl, len)) return false;
  p.node = Node{};
  p.node.type = TaskType::TRANS_MEM;
  p.node.data_type = en.trace.op.data_type;
  p.peer = m.rank;
  p.peer_die = m.die;
  auto ms = [&](u16 id) { return ms_slice(m.rank, en.ms_buf, off16(id, at.ms_off), len); };
  Slice src, dst;
  u64 a = 0;
  switch (w.header) {
    case 0x1000:
      if (!rd(en, m, at, w.xo, ignored) || !local_addr(en, m, at, w.xs, w.xst, a) ||
          !en.mem_slice(m, at, m.rank, a, len, src))
        return false;
      dst = ms(w.ms);
      break;
    case 0x1002:
      if (!rd(en, m, at, w.xo, ignored) || !local_addr(en, m, at, w.xd, w.xdt, a) ||
          !en.mem_slice(m, at, m.rank, a, len, dst))
        return false;
      src = ms(w.ms);
      break;
    case 0x1005:
      if (!rd(en, m, at, w.xo, ignored)) return false;
      dst = ms(w.ms);
      src = ms(w.ms2);
      break;
    default:  // 0x1006: the MS staging is not modelled
      if (!local_addr(en, m, at, w.xs, w.xst, a) || !en.mem_slice(m, at, m.rank, a, len, src)) return false;
      if (!local_addr(en, m, at, w.xd, w.xdt, a) || !en.mem_slice(m, at, m.rank, a, len, dst)) return false;
      break;
  }
  p.group.srcs.assign(1, src);
  p.group.dst = dst;
  return true;
}

bool plan_trans_mem(Engine& en, Mission& m, const WordCtx& at, const A6Word& w, DataPlan& p) {
  u64 ch = 0, len = 0;
  if (!rd(en, m, at, w.xc, ch)) return false;
  if (ch > 0xffffffffu) return en.fail(m, at, 107, fmt::format("channel {:#x} is not in the channel table", ch));
  const CcuChannel* c = en.channel(m, at, static_cast<u32>(ch));
  if (!c || !length(en, m, at, w.xl, len)) return false;
  p.node = Node{};
  p.node.type = w.reduce_en ? TaskType::REDUCE : TaskType::TRANS_MEM;
  p.node.data_type = w.reduce_en ? w.reduce_type : en.trace.op.data_type;
  p.node.reduce_op = w.reduce_op;
  p.peer = c->peer_rank;
  p.peer_die = c->peer_die;
  bool write = w.is_write();
  auto operand = [&](bool local, bool ms_field, u16 raw, Reg r, bool copy_offset, Slice& out) {
    if (local && ms_field && w.ms_id_mode) {
      out = ms_slice(m.rank, en.ms_buf, off16(raw, at.ms_off), len);
      return true;
    }
    u64 a = 0;
    if (!rd(en, m, at, r, a)) return false;
    a += (copy_offset ? at.copy_add : 0) + at.iter_add;
    return en.mem_slice(m, at, local ? m.rank : p.peer, a, len, out);
  };
  Slice src, dst;
  if (!operand(write, write, w.raw_xs, w.xs, w.src_mode, src)) return false;
  if (!operand(!write, !write, w.raw_xd, w.xd, w.dst_mode, dst)) return false;
  p.group.srcs.assign(1, src);
  p.group.dst = dst;
  return true;
}

Step data_word(Engine& en, Mission& m, WordCtx& at, const A6Word& w) {
  DataPlan plan;
  if (w.kind == A6Kind::MsReduce) {
    u64 len = 0;
    if (!length(en, m, at, w.xl, len)) return Step::Failed;
    plan.group.dst = ms_slice(m.rank, en.ms_buf, off16(w.msr[0], at.ms_off), len);
    for (u32 i = 1; i < w.operands(); ++i)
      plan.group.srcs.push_back(ms_slice(m.rank, en.ms_buf, off16(w.msr[i], at.ms_off), len));
    plan.node.type = TaskType::REDUCE;
    plan.node.data_type = w.ms_type;
    plan.node.reduce_op = w.ms_op;
    if (w.cast_en) plan.node.flags |= kTaskSemanticUnchecked;
  } else if (w.kind == A6Kind::TransMem ? !plan_trans_mem(en, m, at, w, plan) : !plan_trans(en, m, at, w, plan)) {
    return Step::Failed;
  }
  // TransMem with notify (dmaOpCode 5) also writes `value` into a peer's Xn.
  RegAddr notify;
  if (w.kind == A6Kind::TransMem && w.dma == 5) {
    u64 addr = 0;
    if (!rd(en, m, at, w.xn, addr) || !decode_reg_addr(en, m, at, plan.peer, addr, notify)) return Step::Failed;
    if (notify.cke) return en.fail(m, at, 111, "TransMem's notify address names a CKE, not an Xn"), Step::Failed;
    const auto& xn = en.machine.die(m.rank, m.die).xn;
    auto src_reg = xn.find(static_cast<u16>(w.xs.id + (w.xs.per_copy ? at.xn_off : 0)));
    if (src_reg == xn.end() || src_reg->second != addr)
      uncertain(en, m, at, "the reference takes the notify register address from the source register, not from xn");
  }
  u32 n = en.data_node(m, at, plan.node, {plan.group});
  if (w.set_mask) {
    en.post(m, at, m.rank, m.die, off16(w.set_id, at.cke_off), w.set_mask, false, n);
  } else {
    en.warn(m, at, "CCU-W-UNOBSERVED",
            "the transfer sets no CKE bit, so nothing can observe its completion and no later word is ordered after it");
  }
  if (w.kind == A6Kind::TransMem && w.dma == 5)
    en.write_reg(plan.peer, notify.die, RegFile::Xn, static_cast<u16>(notify.index), w.value);
  return Step::Next;
}

// SyncWtX: a register or CKE of the peer, written through the channel.
Step sync_wt_x(Engine& en, Mission& m, WordCtx& at, const A6Word& w) {
  u64 ch = 0, target = 0, value = w.raw_xs, notify_addr = 0;
  if (!rd(en, m, at, w.xc, ch)) return Step::Failed;
  const CcuChannel* c = ch <= 0xffffffffu ? en.channel(m, at, static_cast<u32>(ch)) : nullptr;
  if (!c) {
    if (ch > 0xffffffffu) en.fail(m, at, 107, fmt::format("channel {:#x} is not in the channel table", ch));
    return Step::Failed;
  }
  RegAddr dst, notify;
  if (!rd(en, m, at, w.xd, target) || !decode_reg_addr(en, m, at, c->peer_rank, target, dst)) return Step::Failed;
  if (w.mode && !rd(en, m, at, w.xs, value)) return Step::Failed;
  if (w.notify_valid &&
      (!rd(en, m, at, w.xn, notify_addr) || !decode_reg_addr(en, m, at, c->peer_rank, notify_addr, notify)))
    return Step::Failed;
  if (w.notify_valid && !notify.cke)
    return en.fail(m, at, 111, "SyncWtX's notify address names an Xn, not a CKE"), Step::Failed;
  if (dst.cke) {
    u16 bits = static_cast<u16>(value);
    if (bits) en.post(m, at, c->peer_rank, dst.die, static_cast<u16>(dst.index), bits, true, kNone);
    else en.warn(m, at, "CCU-W-SYNC-EMPTY", "writes 0 into the peer's CKE: the peer receives no bit");
  } else {
    en.write_reg(c->peer_rank, dst.die, RegFile::Xn, static_cast<u16>(dst.index), value);
  }
  if (w.notify_valid && (w.value & 0xffff))
    en.post(m, at, c->peer_rank, notify.die, static_cast<u16>(notify.index), static_cast<u16>(w.value), true, kNone);
  control_set(en, m, at, w);
  return Step::Next;
}

Step cke_word(Engine& en, Mission& m, WordCtx& at, const A6Word& w) {
  if (en.opt.strict_ref && w.kind == A6Kind::SetCkBit && !w.clear_type)
    return en.fail(m, at, 111, "SetCKBit with clearType 0 (rejected as the reference does: --ccu-strict-ref)"),
           Step::Failed;
  if (en.opt.strict_ref && w.kind == A6Kind::ClearCke && w.clear_mask)
    return en.fail(m, at, 111, "ClearCKE with a non-zero clearMask (rejected as the reference does: --ccu-strict-ref)"),
           Step::Failed;
  u16 wait_id = off16(w.wait_id, at.cke_off);
  if (!en.cke_ready(m, wait_id, w.wait_mask)) return en.block(m, at, wait_id, w.wait_mask), Step::Blocked;
  en.consume(m, at, wait_id, w.wait_mask);
  if (w.kind == A6Kind::ClearCke && w.clear_mask) en.clear_bits(m, at, off16(w.clear_id, at.cke_off), w.clear_mask);
  if (w.set_mask) {
    u32 p = en.post(m, at, m.rank, m.die, off16(w.set_id, at.cke_off), w.set_mask, false, kNone);
    en.machine.posts[p].control_set = w.kind == A6Kind::SetCkBit;
  }
  en.clear_waited(m, at, wait_id, w.wait_mask, w.clear_type);
  return Step::Next;
}

Step alu(Engine& en, Mission& m, WordCtx& at, const A6Word& w) {
  u64 a = 0, b = 0;
  if (!rd(en, m, at, w.xn, a)) return Step::Failed;
  bool imm = (w.alu == AluOp::Add || w.alu == AluOp::Sub || w.alu == AluOp::Mul) && !w.mode;
  bool unary = w.alu == AluOp::Not || w.alu == AluOp::Popcnt;
  if (imm) b = w.raw_xm;
  else if (!unary && !rd(en, m, at, w.xm, b)) return Step::Failed;
  u64 r = 0;
  switch (w.alu) {
    case AluOp::Add: r = a + b; break;
    case AluOp::Sub: r = a - b; break;
    case AluOp::Mul: r = (a & 0xffffffffu) * (imm ? b : (b & 0xffffffffu)); break;
    case AluOp::And: r = a & b; break;
    case AluOp::Or: r = a | b; break;
    case AluOp::Xor: r = a ^ b; break;
    case AluOp::Not: r = ~a; break;
    case AluOp::Shl: r = b >= 64 ? 0 : a << b; break;
    case AluOp::Shr:
      if (w.arithmetic) r = static_cast<u64>(static_cast<std::int64_t>(a) >> (b >= 64 ? 63 : b));
      else r = b >= 64 ? 0 : a >> b;
      break;
    case AluOp::Popcnt: r = static_cast<u64>(std::popcount(a)); break;
  }
  if (!wr(en, m, at, w.xd, r)) return Step::Failed;
  control_set(en, m, at, w);
  return Step::Next;
}

// LoadX / StoreX / ClearX / Load / Store: register moves and the HBM scratch.
Step reg_word(Engine& en, Mission& m, WordCtx& at, const A6Word& w) {
  u64 x = 0, y = 0, z = 0;
  switch (w.kind) {
    case A6Kind::LoadSqeArg: {
      if (!en.sqe_arg(m, at, w.slot, x)) return Step::Failed;
      if (w.xd.id >= kXnCount)
        return en.fail(m, at, 109, fmt::format("register index {} is outside 0..{}", w.xd.id, kXnCount - 1)),
               Step::Failed;
      en.write_reg(m.rank, m.die, RegFile::Xn, w.xd.id, x);
      break;
    }
    case A6Kind::LoadImm:
      if (!wr(en, m, at, w.xd, w.imm)) return Step::Failed;
      break;
    case A6Kind::LoadX: {
      if (!rd(en, m, at, w.xs, x)) return Step::Failed;
      u64 index = 0, add = w.raw_xdo;
      if (w.mode) {
        if (!rd(en, m, at, w.xso, y) || !rd(en, m, at, w.xdo, add)) return Step::Failed;
        index = static_cast<u16>(x + y);
      } else {
        index = u64{static_cast<u16>(x)} + w.raw_xso;
      }
      if (!rd_index(en, m, at, index, z) || !wr(en, m, at, w.xd, z + add)) return Step::Failed;
      break;
    }
    case A6Kind::StoreX: {
      if (!rd(en, m, at, w.xd, x) || !rd(en, m, at, w.xs, y)) return Step::Failed;
      u64 index = 0, add = w.raw_xso;
      if (w.mode) {
        if (!rd(en, m, at, w.xdo, z) || !rd(en, m, at, w.xso, add)) return Step::Failed;
        index = static_cast<u16>(x + z);
      } else {
        index = u64{static_cast<u16>(x)} + w.raw_xdo;
      }
      if ((y + add) > 0xffff) uncertain(en, m, at, "the reference keeps only the low 16 bits of a value StoreX writes");
      if (!wr_index(en, m, at, index, y + add)) return Step::Failed;
      break;
    }
    case A6Kind::ClearX: {
      u32 lo = 0, hi = 0;
      if (!reg_id(en, m, at, w.xn, lo) || !reg_id(en, m, at, w.xm, hi)) return Step::Failed;
      if (lo > hi) hi = kXnCount - 1;
      for (u32 i = lo; i <= hi; ++i) en.write_reg(m.rank, m.die, RegFile::Xn, static_cast<u16>(i), 0);
      break;
    }
    case A6Kind::Load: {
      if (!rd(en, m, at, w.xs, x) || !rd(en, m, at, w.xl, y) || !rd(en, m, at, w.xd, z)) return Step::Failed;
      if (x % 8) return en.fail(m, at, 110, fmt::format("Load address {:#x} is not 8-byte aligned", x)), Step::Failed;
      if (y % 8) return en.fail(m, at, 105, fmt::format("Load length {:#x} is not a multiple of 8", y)), Step::Failed;
      auto it = en.machine.hbm.find({m.rank, x});
      if (it == en.machine.hbm.end())
        return en.fail(m, at, 108, fmt::format("Load from {:#x}, where nothing was stored", x)), Step::Failed;
      if (it->second.size() < y / 8)
        return en.fail(m, at, 105,
                       fmt::format("Load of {:#x} bytes from an entry of {:#x} bytes", y, it->second.size() * 8)),
               Step::Failed;
      if (!reg_range_ok(z, y / 8))
        return en.fail(m, at, 109, fmt::format("Load writes registers {:#x}.. past {}", z, kXnCount - 1)),
               Step::Failed;
      for (u64 i = 0; i < y / 8; ++i)
        en.write_reg(m.rank, m.die, RegFile::Xn, static_cast<u16>(z + i), it->second[i]);
      break;
    }
    case A6Kind::Store: {
      if (!rd(en, m, at, w.xd, x) || !rd(en, m, at, w.xl, y) || !rd(en, m, at, w.xs, z)) return Step::Failed;
      if (y % 8) return en.fail(m, at, 105, fmt::format("Store length {:#x} is not a multiple of 8", y)), Step::Failed;
      if ((y / 8) % 8)
        return en.fail(m, at, 110, fmt::format("Store of {:#x} bytes: not a multiple of 64 bytes", y)), Step::Failed;
      if (!reg_range_ok(z, y / 8))
        return en.fail(m, at, 109, fmt::format("Store reads registers {:#x}.. past {}", z, kXnCount - 1)),
               Step::Failed;
      std::vector<u64> entry(y / 8);
      for (u64 i = 0; i < entry.size(); ++i)
        if (!rd_index(en, m, at, z + i, entry[i])) return Step::Failed;
      en.machine.hbm[{m.rank, x}] = std::move(entry);
      break;
    }
    default:
      break;
  }
  control_set(en, m, at, w);
  return Step::Next;
}

}  // namespace

bool a6_allowed_in_body(const A6Word& w) { return w.kind != A6Kind::LoadSqeArg && w.kind != A6Kind::LoopGroup; }

Step exec_a6(Engine& en, Mission& m, WordCtx& at, const A6Word& w, bool body, u32& jump_to) {
  switch (w.kind) {
    case A6Kind::Nop:
      control_set(en, m, at, w);
      return Step::Next;
    case A6Kind::Alu:
      return alu(en, m, at, w);
    case A6Kind::Loop:
      en.fail(m, at, 111, "a Loop word executed directly (Loop words run only through a LoopGroup)");
      return Step::Failed;
    case A6Kind::LoopGroup:
      return Step::Group;
    case A6Kind::SetCkBit:
    case A6Kind::ClearCke:
      return cke_word(en, m, at, w);
    case A6Kind::Jmp: {
      u64 cond = 0, expected = 0, target = 0;
      if (!rd(en, m, at, w.xn, cond) || !rd(en, m, at, w.xm, expected)) return Step::Failed;
      if (!compare(w.condition, cond, expected)) return Step::Next;
      if (body) return en.fail(m, at, 111, "a jump taken inside a loop body"), Step::Failed;
      if (!rd(en, m, at, w.xp, target)) return Step::Failed;
      u64 pc = w.absolute ? target : (at.pc + target) % 0x10000;
      if (pc > 0xffffffffu)
        return en.fail(m, at, 105, fmt::format("jumps to {:#x}, outside the image", pc)), Step::Failed;
      jump_to = static_cast<u32>(pc);
      return Step::Jump;
    }
    case A6Kind::Wait: {
      u64 cond = 0, expected = 0;
      if (!rd(en, m, at, w.xn, cond) || !rd(en, m, at, w.xm, expected)) return Step::Failed;
      if (compare(w.condition, cond, expected)) return Step::Next;
      uncertain(en, m, at, "Wait blocks until its condition holds; the reference lets it fall through");
      en.block(m, at, 0, 0);
      static const char* kOps[] = {"==", "!=", ">", ">=", "<", "<="};
      m.blocked_on = fmt::format("X{} {} X{} (now {:#x} and {:#x})", w.xn.id, kOps[w.condition < 6 ? w.condition : 0],
                                 w.xm.id, cond, expected);
      return Step::Blocked;
    }
    case A6Kind::Trans:
    case A6Kind::TransMem:
    case A6Kind::MsReduce:
      return data_word(en, m, at, w);
    case A6Kind::SyncWtX:
      return sync_wt_x(en, m, at, w);
    default:
      return reg_word(en, m, at, w);
  }
}

}  // namespace cc::ccu
