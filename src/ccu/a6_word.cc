#include "ccu/a6_word.h"

#include <fmt/format.h>

#include "ccu/a5_word.h"

namespace cc::ccu {

namespace {

Reg reg(u16 field) { return Reg{static_cast<u16>(field & 0x7fff), (field & 0x8000) != 0}; }
Reg masked(u16 field) { return Reg{static_cast<u16>(field & 0x7fff), false}; }

void own_set(const Word& w, A6Word& o) {
  o.set_id = w.h(28);
  o.set_mask = w.h(30);
}

Status ms_reduce(const Word& w, A6Word& o) {
  // The A5 decoder reads the same fields (msId[8], count, castEn, dataType).
  A5Word a;
  CC_TRY(decode_a5(w, a));
  o.kind = A6Kind::MsReduce;
  for (u32 i = 0; i < 8; ++i) o.msr[i] = a.ms[i];
  o.xl = reg(w.h(18));
  o.count = a.count;
  o.cast_en = a.cast_en;
  o.type_code = a.type_code;
  o.ms_type = a.ms_type;
  o.ms_op = a.ms_op;
  own_set(w, o);
  return {};
}

Status trans_mem(const Word& w, A6Word& o) {
  o.kind = A6Kind::TransMem;
  o.xd = reg(w.h(2)), o.raw_xd = w.h(2);
  o.xdt = reg(w.h(4));
  o.xs = reg(w.h(6)), o.raw_xs = w.h(6);
  o.xst = reg(w.h(8));
  o.xl = reg(w.h(10));
  o.xc = reg(w.h(12));
  o.xn = reg(w.h(14));
  o.xnt = reg(w.h(16));
  o.value = w.d(18);
  o.udf_type = w.byte(22);
  o.reduce_type_code = w.byte(23) & 0xf;
  o.reduce_op_code = w.byte(23) >> 4;
  o.dma = w.byte(24);
  o.reduce_en = (w.byte(25) >> 6) & 1;
  o.src_mode = (w.byte(26) >> 3) & 1;
  o.dst_mode = (w.byte(26) >> 4) & 1;
  o.ms_id_mode = (w.byte(26) >> 5) & 1;
  own_set(w, o);
  if (o.udf_type != 0) return Error{fmt::format("TransMem udfType {} is not supported", o.udf_type)};
  if (o.dma != 3 && o.dma != 5 && o.dma != 6)
    return Error{fmt::format("TransMem dmaOpCode {} is not supported (3 write, 5 write with notify, 6 read)", o.dma)};
  if (!o.reduce_en) return {};
  return ub_reduce_fields(o.reduce_type_code, o.reduce_op_code, o.reduce_type, o.reduce_op);
}

void alu(const Word& w, A6Word& o) {
  static constexpr AluOp kOps[] = {AluOp::Add, AluOp::Sub, AluOp::Mul, AluOp::And, AluOp::Or,
                                   AluOp::Not, AluOp::Xor, AluOp::Shl, AluOp::Shr, AluOp::Popcnt};
  o.kind = A6Kind::Alu;
  o.alu = kOps[o.header - 0x000d];
  o.xd = reg(w.h(2));
  o.xn = reg(w.h(4));
  o.xm = reg(w.h(6)), o.raw_xm = w.h(6);
  o.mode = w.byte(8) & 1;
  o.arithmetic = w.byte(22) & 1;
  own_set(w, o);
}

}  // namespace

Status decode_a6(const Word& w, A6Word& o) {
  o = A6Word{};
  o.header = w.header();
  switch (o.header) {
    case 0x0001:
      o.kind = A6Kind::LoadSqeArg;
      o.xd = Reg{w.h(2), false};  // the raw field (§15.1)
      o.slot = w.h(4);
      own_set(w, o);
      return {};
    case 0x0002:
      o.kind = A6Kind::LoadImm;
      o.xd = reg(w.h(2));
      o.imm = w.q(4);
      own_set(w, o);
      return {};
    case 0x0006:
    case 0x0007:
      o.kind = o.header == 6 ? A6Kind::LoadX : A6Kind::StoreX;
      o.xd = reg(w.h(2));
      o.xs = reg(w.h(4));
      o.xso = reg(w.h(6)), o.raw_xso = w.h(6);
      o.xdo = reg(w.h(8)), o.raw_xdo = w.h(8);
      o.mode = w.byte(10) & 1;
      own_set(w, o);
      return {};
    case 0x0008:
      o.kind = A6Kind::ClearX;
      o.xn = reg(w.h(2));
      o.xm = reg(w.h(4));
      own_set(w, o);
      return {};
    case 0x0009:
      o.kind = A6Kind::Nop;
      own_set(w, o);
      return {};
    case 0x000a:
      o.kind = A6Kind::Load;
      o.xd = reg(w.h(2));
      o.xs = reg(w.h(4));
      o.xst = reg(w.h(6));
      o.xl = reg(w.h(8));
      own_set(w, o);
      if (w.byte(22) & 0xf) {
        return Error{fmt::format("Load dstType {} is not supported (0: registers)", w.byte(22) & 0xf)};
      }
      return {};
    case 0x000b:
      o.kind = A6Kind::Store;
      o.xd = reg(w.h(2));
      o.xdt = reg(w.h(4));
      o.xs = reg(w.h(6));
      o.xl = reg(w.h(8));
      o.xh = reg(w.h(10));
      o.store_flags = w.byte(23);
      own_set(w, o);
      if (w.byte(22) & 0xf) {
        return Error{fmt::format("Store srcType {} is not supported (0: registers)", w.byte(22) & 0xf)};
      }
      return {};
    case 0x000d: case 0x000e: case 0x000f: case 0x0010: case 0x0011:
    case 0x0012: case 0x0013: case 0x0014: case 0x0015: case 0x0016:
      alu(w, o);
      return {};
    case 0x0800:
      o.kind = A6Kind::Loop;
      o.start = w.h(2);
      o.end = w.h(4);
      o.xm = masked(w.h(6));
      o.xn = masked(w.h(8));
      o.xp = masked(w.h(10));
      o.wish = w.h(12);
      o.loop_mode = w.byte(14) & 1;
      return {};
    case 0x0801:
      o.kind = A6Kind::LoopGroup;
      o.start = w.h(2);
      o.xn = masked(w.h(4));
      o.xm = masked(w.h(6));
      o.xp = masked(w.h(8));
      return {};
    case 0x0802:
    case 0x0804:
      o.kind = o.header == 0x0802 ? A6Kind::SetCkBit : A6Kind::ClearCke;
      o.clear_type = w.byte(2) & 1;
      if (o.kind == A6Kind::SetCkBit) {
        o.set_id = w.h(4);
        o.set_mask = w.h(6);
        o.user_data = w.q(12);
      } else {
        o.clear_id = w.h(4);
        o.clear_mask = w.h(6);
      }
      o.wait_id = w.h(8);
      o.wait_mask = w.h(10);
      return {};
    case 0x0805:
      o.kind = A6Kind::Jmp;
      o.xm = reg(w.h(2));  // expected
      o.xn = reg(w.h(4));  // condition
      o.xp = reg(w.h(6));  // target
      o.condition = w.byte(8) & 0xf;
      o.absolute = (w.byte(8) >> 4) & 1;
      return {};
    case 0x0807:
      o.kind = A6Kind::Wait;
      o.xn = reg(w.h(2));  // condition
      o.xm = reg(w.h(4));  // expected
      o.condition = w.byte(6) & 0xf;
      return {};
    case 0x0808:
      return Error{"Fence is not supported"};
    case 0x1000:
      o.kind = A6Kind::Trans;
      o.ms = w.h(2);
      o.xs = reg(w.h(4));
      o.xst = reg(w.h(6));
      o.xl = reg(w.h(8));
      o.xo = reg(w.h(10));
      own_set(w, o);
      return {};
    case 0x1002:
      o.kind = A6Kind::Trans;
      o.xd = reg(w.h(2));
      o.xdt = reg(w.h(4));
      o.ms = w.h(6);
      o.xl = reg(w.h(8));
      o.xo = reg(w.h(10));
      own_set(w, o);
      return {};
    case 0x1005:
      o.kind = A6Kind::Trans;
      o.ms = w.h(2);
      o.ms2 = w.h(4);
      o.xl = reg(w.h(6));
      o.xo = reg(w.h(8));
      own_set(w, o);
      return {};
    case 0x1006:
      o.kind = A6Kind::Trans;
      o.xd = reg(w.h(2));
      o.xdt = reg(w.h(4));
      o.xs = reg(w.h(6));
      o.xst = reg(w.h(8));
      o.xl = reg(w.h(10));
      o.ms = w.h(12);
      own_set(w, o);
      return {};
    case 0x1010:
      return trans_mem(w, o);
    case 0x100d:
      o.kind = A6Kind::SyncWtX;
      o.xd = reg(w.h(2));
      o.xdt = reg(w.h(4));
      o.xs = reg(w.h(6)), o.raw_xs = w.h(6);
      o.xc = reg(w.h(8));
      o.xn = reg(w.h(10));
      o.xnt = reg(w.h(12));
      o.value = w.d(14);
      o.notify_valid = w.byte(18) & 1;
      o.mode = (w.byte(18) >> 1) & 1;
      own_set(w, o);
      return {};
    case 0x100e:
      return Error{"SyncAtX is not supported"};
    case 0x1800:
    case 0x1801:
    case 0x1802:
      return ms_reduce(w, o);
    default:
      return Error{fmt::format("unknown A6 instruction header {:#06x}", o.header)};
  }
}

namespace {

std::string r(const Reg& x) { return fmt::format("X{}{}", x.id, x.per_copy ? "'" : ""); }

std::string set_text(const A6Word& w) {
  return w.set_mask ? fmt::format(" set {}/{:#x}", w.set_id, w.set_mask) : std::string();
}

const char* op_text(u8 c) {
  static const char* kOps[] = {"==", "!=", ">", ">=", "<", "<="};
  return c < 6 ? kOps[c] : "always";
}

}  // namespace

std::string a6_operands(const A6Word& w) {
  std::string s;
  switch (w.kind) {
    case A6Kind::LoadSqeArg: s = fmt::format("X{} <- arg[{}]", w.xd.id, w.slot); break;
    case A6Kind::LoadImm: s = fmt::format("{} <- {:#x}", r(w.xd), w.imm); break;
    case A6Kind::LoadX:
      s = w.mode ? fmt::format("{} <- X[{} + {}] + {}", r(w.xd), r(w.xs), r(w.xso), r(w.xdo))
                 : fmt::format("{} <- X[{} + {}] + {}", r(w.xd), r(w.xs), w.raw_xso, w.raw_xdo);
      break;
    case A6Kind::StoreX:
      s = w.mode ? fmt::format("X[{} + {}] <- {} + {}", r(w.xd), r(w.xdo), r(w.xs), r(w.xso))
                 : fmt::format("X[{} + {}] <- {} + {}", r(w.xd), w.raw_xdo, r(w.xs), w.raw_xso);
      break;
    case A6Kind::ClearX: s = fmt::format("{}..{} <- 0", r(w.xn), r(w.xm)); break;
    case A6Kind::Nop: break;
    case A6Kind::Load: s = fmt::format("X[{}..] <- hbm({}) len {}", r(w.xd), r(w.xs), r(w.xl)); break;
    case A6Kind::Store: s = fmt::format("hbm({}) <- X[{}..] len {}", r(w.xd), r(w.xs), r(w.xl)); break;
    case A6Kind::Alu: {
      static const char* kNames[] = {"+", "-", "*", "&", "|", "~", "^", "<<", ">>", "popcnt"};
      const char* op = kNames[static_cast<int>(w.alu)];
      if (w.alu == AluOp::Not || w.alu == AluOp::Popcnt) s = fmt::format("{} <- {} {}", r(w.xd), op, r(w.xn));
      else if ((w.alu == AluOp::Add || w.alu == AluOp::Sub || w.alu == AluOp::Mul) && !w.mode)
        s = fmt::format("{} <- {} {} {:#x}", r(w.xd), r(w.xn), op, w.raw_xm);
      else s = fmt::format("{} <- {} {}{} {}", r(w.xd), r(w.xn), op, w.alu == AluOp::Shr && w.arithmetic ? "a" : "", r(w.xm));
      break;
    }
    case A6Kind::Loop:
      s = fmt::format("body [{},{}] iter {} stride {} ctx {}{}", w.start, w.end, r(w.xm), r(w.xn), r(w.xp),
                      w.loop_mode ? fmt::format(" mode 1 wish {}", w.wish) : "");
      break;
    case A6Kind::LoopGroup:
      s = fmt::format("loops at {} param {} offsets {} xnIdOffset {}", w.start, r(w.xn), r(w.xm), r(w.xp));
      break;
    case A6Kind::SetCkBit:
    case A6Kind::ClearCke:
      if (w.clear_mask) s += fmt::format(" clear {}/{:#x}", w.clear_id, w.clear_mask);
      if (w.wait_mask) s += fmt::format(" wait {}/{:#x}{}", w.wait_id, w.wait_mask, w.clear_type ? " clr" : " keep");
      s += set_text(w);
      if (!s.empty()) s.erase(0, 1);
      return s;
    case A6Kind::Jmp:
      return fmt::format("{} {} if {} {} {}", w.absolute ? "to" : "by", r(w.xp), r(w.xn), op_text(w.condition),
                         r(w.xm));
    case A6Kind::Wait: return fmt::format("until {} {} {}", r(w.xn), op_text(w.condition), r(w.xm));
    case A6Kind::Trans:
      switch (w.header) {
        case 0x1000: s = fmt::format("MS({:#x}) <- mem({}) len {}", w.ms, r(w.xs), r(w.xl)); break;
        case 0x1002: s = fmt::format("mem({}) <- MS({:#x}) len {}", r(w.xd), w.ms, r(w.xl)); break;
        case 0x1005: s = fmt::format("MS({:#x}) <- MS({:#x}) len {}", w.ms, w.ms2, r(w.xl)); break;
        default: s = fmt::format("mem({}) <- mem({}) len {}", r(w.xd), r(w.xs), r(w.xl)); break;
      }
      break;
    case A6Kind::TransMem: {
      std::string src = w.ms_id_mode && w.is_write() ? fmt::format("MS({:#x})", w.raw_xs) : fmt::format("mem({})", r(w.xs));
      std::string dst = w.ms_id_mode && !w.is_write() ? fmt::format("MS({:#x})", w.raw_xd) : fmt::format("mem({})", r(w.xd));
      (w.is_write() ? dst : src).insert(0, "rmt.");
      s = fmt::format("{} <- {} len {} ch {} dma {}", dst, src, r(w.xl), r(w.xc), w.dma);
      if (w.reduce_en) s += fmt::format(" reduce {} {}", name(w.reduce_op), name(w.reduce_type));
      if (w.dma == 5) s += fmt::format(" notify {} = {:#x}", r(w.xn), w.value);
      break;
    }
    case A6Kind::SyncWtX:
      s = fmt::format("rmt.reg({}) <- {} ch {}", r(w.xd), w.mode ? r(w.xs) : fmt::format("{:#x}", w.raw_xs), r(w.xc));
      if (w.notify_valid) s += fmt::format(" notify cke({}) |= {:#x}", r(w.xn), w.value);
      break;
    case A6Kind::MsReduce: {
      s = fmt::format("MS({:#x}) {}=", w.msr[0], name(w.ms_op));
      for (u32 i = 1; i < w.operands(); ++i) s += fmt::format("{}MS({:#x})", i > 1 ? ", " : " ", w.msr[i]);
      s += fmt::format(" len {} {}", r(w.xl), name(w.ms_type));
      if (w.cast_en) s += fmt::format(" cast {}", w.cast_en == 1 ? "FP16" : "BFP16");
      break;
    }
  }
  return s + set_text(w);
}

}  // namespace cc::ccu
