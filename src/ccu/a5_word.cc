#include "ccu/a5_word.h"

#include <fmt/format.h>

namespace cc::ccu {

bool a5_ms_data_type(u8 code, DataType& out) {
  static constexpr DataType kTable[] = {DataType::FP32,    DataType::FP16,    DataType::BFP16, DataType::HIF8,
                                        DataType::FP8E4M3, DataType::FP8E5M2, DataType::INT8,  DataType::UINT8,
                                        DataType::INT16,   DataType::INT32};
  if (code >= std::size(kTable)) return false;
  out = kTable[code];
  return true;
}

bool a5_ub_data_type(u8 code, DataType& out) {
  static constexpr DataType kTable[] = {DataType::INT8,   DataType::INT16, DataType::INT32,
                                        DataType::UINT8,  DataType::UINT16, DataType::UINT32,
                                        DataType::FP16,   DataType::FP32,  DataType::BFP16};
  if (code >= std::size(kTable)) return false;
  out = kTable[code];
  return true;
}

bool a5_ub_reduce_op(u8 code, ReduceOp& out) {
  switch (code) {
    case 10: out = ReduceOp::SUM; return true;
    case 8: out = ReduceOp::MAX; return true;
    case 9: out = ReduceOp::MIN; return true;
    default: return false;
  }
}

Status ub_reduce_fields(u8 type_code, u8 op_code, DataType& type, ReduceOp& op) {
  if (!a5_ub_data_type(type_code, type)) {
    return Error{fmt::format("reduceDataType {} is not in the UB table (0-8)", type_code)};
  }
  if (!a5_ub_reduce_op(op_code, op)) {
    return Error{fmt::format("reduceOpCode {} is not SUM (10), MAX (8) or MIN (9)", op_code)};
  }
  return {};
}

namespace {

// The common tail of TRANS, Sync and MS-reduce words (bytes 22-31).
void read_tail(const Word& w, A5Word& o) {
  o.cke.clear_type = w.h(22) & 1;
  o.cke.set_id = w.h(24);
  o.cke.set_mask = w.h(26);
  o.cke.wait_id = w.h(28);
  o.cke.wait_mask = w.h(30);
}

A5Operand mem(u16 gsa, u16 token, bool remote) { return {false, remote, gsa, token, true}; }
A5Operand ms(u16 id, bool remote) { return {true, remote, id, 0, false}; }

// 0x1000-0x100a: operands, length register and channel (§3.3).
Status decode_trans(const Word& w, A5Word& o) {
  u16 op = o.header & 0xff;
  o.kind = A5Kind::Trans;
  read_tail(w, o);
  o.length_en = (w.h(22) >> 1) & 1;
  switch (op) {
    case 0x0: o.dst_op = ms(w.h(2), false), o.src = mem(w.h(4), w.h(6), false), o.len_xn = w.h(8), o.channel = w.h(10); break;
    case 0x1: o.dst_op = ms(w.h(2), false), o.src = mem(w.h(4), w.h(6), true), o.len_xn = w.h(8), o.channel = w.h(10); break;
    case 0x2: o.dst_op = mem(w.h(2), w.h(4), false), o.src = ms(w.h(6), false), o.len_xn = w.h(8), o.channel = w.h(10); break;
    case 0x3: o.dst_op = mem(w.h(2), w.h(4), true), o.src = ms(w.h(6), false), o.len_xn = w.h(8), o.channel = w.h(10); break;
    case 0x4: o.dst_op = mem(w.h(2), w.h(4), false), o.src = ms(w.h(6), true), o.len_xn = w.h(8), o.channel = w.h(10); break;
    case 0x5: o.dst_op = ms(w.h(2), false), o.src = ms(w.h(4), false), o.len_xn = w.h(6), o.channel = w.h(8); break;
    case 0x6: o.dst_op = ms(w.h(2), false), o.src = ms(w.h(4), true), o.len_xn = w.h(6), o.channel = w.h(8); break;
    case 0x7:
      o.dst_op = ms(w.h(2), true), o.src = ms(w.h(4), false), o.len_xn = w.h(6), o.channel = w.h(8);
      o.rmt_set_id = w.h(10), o.rmt_set_mask = w.h(12);
      break;
    case 0x8:
    case 0x9:
    case 0xa: {
      bool rd = op == 0x8, wr = op == 0x9;
      o.dst_op = mem(w.h(2), w.h(4), wr);
      o.src = mem(w.h(6), w.h(8), rd);
      o.len_xn = w.h(10);
      o.channel = w.h(12);
      if (op == 0xa) break;
      o.udf_type = w.byte(14);
      o.reduce_type_code = w.byte(15) & 0xf;
      o.reduce_op_code = w.byte(15) >> 4;
      o.reduce_en = (w.h(22) >> 2) & 1;
      if (o.udf_type != 0) return Error{fmt::format("udfType {} is not supported (collcheck requires 0)", o.udf_type)};
      if (o.reduce_en) CC_TRY(ub_reduce_fields(o.reduce_type_code, o.reduce_op_code, o.reduce_type, o.reduce_op));
      break;
    }
    default: return Error{"not reached: the caller checked the header"};
  }
  o.uses_channel = o.remote();
  return {};
}

Status decode_ms_reduce(const Word& w, A5Word& o) {
  o.kind = A5Kind::MsReduce;
  read_tail(w, o);
  for (u32 i = 0; i < 8; ++i) o.ms[i] = w.h(2 + 2 * i);
  o.len_xn = w.h(18);
  u16 ctl = w.h(22);
  o.count = static_cast<u8>((ctl >> 1) & 7);
  o.cast_en = static_cast<u8>((ctl >> 4) & 3);
  o.type_code = static_cast<u8>(ctl >> 11);
  o.ms_op = o.header == 0x1800 ? ReduceOp::SUM : o.header == 0x1801 ? ReduceOp::MAX : ReduceOp::MIN;
  if (o.count == 7) return Error{"count 7 names a ninth MS operand (at most 8)"};
  if (!a5_ms_data_type(o.type_code, o.ms_type)) {
    return Error{fmt::format("dataType {} is not in the MS table (0-9)", o.type_code)};
  }
  if (o.type_code >= 3 && o.type_code <= 5 && o.ms_op != ReduceOp::SUM) {
    return Error{fmt::format("dataType {} ({}) is valid only for Add", o.type_code, name(o.ms_type))};
  }
  if (o.cast_en != 0 && o.ms_op != ReduceOp::SUM) {
    return Error{fmt::format("castEn {} is valid only for Add", o.cast_en)};
  }
  if (o.cast_en == 3) return Error{"castEn 3 is not a known output type (0 same, 1 FP16, 2 BFP16)"};
  return {};
}

}  // namespace

Status decode_a5(const Word& w, A5Word& o) {
  o = A5Word{};
  o.header = w.header();
  switch (o.header) {
    case 0x0000:
    case 0x0001:
      o.kind = A5Kind::LoadSqeArg;
      o.dst_file = o.header == 0 ? RegFile::Gsa : RegFile::Xn;
      o.dst = w.h(2);
      o.slot = w.h(4);
      return {};
    case 0x0002:
    case 0x0003:
      o.kind = A5Kind::LoadImm;
      o.dst_file = o.header == 2 ? RegFile::Gsa : RegFile::Xn;
      o.dst = w.h(2);
      o.imm = w.q(4);
      if (o.header == 3) o.sec_flag = w.h(12);
      return {};
    case 0x0004:
    case 0x0005:
    case 0x0006:
      o.kind = A5Kind::LoadAdd;
      o.dst_file = o.a_file = o.header == 6 ? RegFile::Xn : RegFile::Gsa;
      o.b_file = o.header == 5 ? RegFile::Gsa : RegFile::Xn;
      o.dst = w.h(2);
      o.a = w.h(4);
      o.b = w.h(6);
      return {};
    case 0x0800:
      o.kind = A5Kind::Loop;
      o.start = w.h(2);
      o.end = w.h(4);
      o.xn = w.h(6);
      return {};
    case 0x0801:
      o.kind = A5Kind::LoopGroup;
      o.start = w.h(2);
      o.xn = w.h(4);
      o.xm = w.h(6);
      o.high_perf = w.byte(8) & 1;
      return {};
    case 0x0802:
    case 0x0804:
      o.kind = o.header == 0x0802 ? A5Kind::SetCke : A5Kind::ClearCke;
      o.cke.clear_type = w.byte(2) & 1;
      if (o.kind == A5Kind::SetCke) {
        o.cke.set_id = w.h(4);
        o.cke.set_mask = w.h(6);
      } else {
        o.clear_id = w.h(4);
        o.clear_mask = w.h(6);
      }
      o.cke.wait_id = w.h(8);
      o.cke.wait_mask = w.h(10);
      return {};
    case 0x0805:
      o.kind = A5Kind::Jmp;
      o.dst_xn = w.h(2);
      o.cond_xn = w.h(4);
      o.expect = w.q(6);
      return {};
    case 0x100b:
      o.kind = A5Kind::SyncCke;
      read_tail(w, o);
      o.rmt_cke = w.h(2);
      o.loc_cke = w.h(4);
      o.loc_mask = w.h(6);
      o.channel = w.h(8);
      o.uses_channel = true;
      return {};
    case 0x100c:
    case 0x100d:
      o.kind = o.header == 0x100c ? A5Kind::SyncGsa : A5Kind::SyncXn;
      read_tail(w, o);
      o.rmt_reg = w.h(2);
      o.loc_reg = w.h(4);
      o.channel = w.h(8);
      o.rmt_set_id = w.h(10);
      o.rmt_set_mask = w.h(12);
      o.uses_channel = true;
      return {};
    case 0x1800:
    case 0x1801:
    case 0x1802:
      return decode_ms_reduce(w, o);
    default:
      if (o.header >= 0x1000 && o.header <= 0x100a) return decode_trans(w, o);
      return Error{(o.header & 0x8000) ? fmt::format("header {:#06x} sets reserved bit 15", o.header)
                                       : fmt::format("unknown A5 instruction header {:#06x}", o.header)};
  }
}

}  // namespace cc::ccu
