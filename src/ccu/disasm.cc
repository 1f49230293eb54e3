#include "ccu/disasm.h"

#include <fmt/format.h>

#include "ccu/a5_word.h"
#include "ccu/a6_word.h"
#include "model/ccu_names.h"

namespace cc::ccu {

namespace {

std::string reg(RegFile f, u16 id) { return fmt::format("{}{}", f == RegFile::Gsa ? "G" : "X", id); }

std::string operand(const A5Operand& o) {
  std::string s = o.remote ? "rmt." : "";
  if (o.ms) return s + fmt::format("MS({:#x})", o.id);
  return s + fmt::format("mem(G{})", o.id);
}

std::string tail(const CkeFields& c) {
  std::string s;
  if (c.wait_mask) s += fmt::format(" wait {}/{:#x}{}", c.wait_id, c.wait_mask, c.clear_type ? " clr" : " keep");
  if (c.set_mask) s += fmt::format(" set {}/{:#x}", c.set_id, c.set_mask);
  return s;
}

std::string trim(std::string s) { return s.empty() || s[0] != ' ' ? s : s.substr(1); }

std::string a5_body(const A5Word& w) {
  switch (w.kind) {
    case A5Kind::LoadSqeArg: return fmt::format("{} <- arg[{}]", reg(w.dst_file, w.dst), w.slot);
    case A5Kind::LoadImm:
      return fmt::format("{} <- {:#x}{}", reg(w.dst_file, w.dst), w.imm,
                         w.sec_flag ? fmt::format(" sec {}", w.sec_flag) : "");
    case A5Kind::LoadAdd:
      return fmt::format("{} <- {} + {}", reg(w.dst_file, w.dst), reg(w.a_file, w.a), reg(w.b_file, w.b));
    case A5Kind::Loop: return fmt::format("body [{},{}] param X{}", w.start, w.end, w.xn);
    case A5Kind::LoopGroup:
      return fmt::format("loops at {} param X{} offsets X{}{}", w.start, w.xn, w.xm, w.high_perf ? " hp" : "");
    case A5Kind::SetCke:
      return trim(tail(w.cke) + (w.cke.clear_type || w.cke.wait_mask ? "" : " clearType 0"));
    case A5Kind::ClearCke:
      return trim((w.clear_mask ? fmt::format(" clear {}/{:#x}", w.clear_id, w.clear_mask) : std::string()) +
                  tail(w.cke) + (w.cke.clear_type || w.cke.wait_mask ? "" : " clearType 0"));
    case A5Kind::Jmp: return fmt::format("to X{} if X{} != {:#x}", w.dst_xn, w.cond_xn, w.expect);
    case A5Kind::Trans: {
      std::string s = fmt::format("{} <- {} len X{}", operand(w.dst_op), operand(w.src), w.len_xn);
      if (w.uses_channel) s += fmt::format(" ch {}", w.channel);
      if (w.reduce_en) s += fmt::format(" reduce {} {}", name(w.reduce_op), name(w.reduce_type));
      if (w.rmt_set_mask) s += fmt::format(" rmt-set {}/{:#x}", w.rmt_set_id, w.rmt_set_mask);
      return s + tail(w.cke);
    }
    case A5Kind::SyncCke:
      return fmt::format("rmt.cke {} |= cke {} & {:#x} ch {}{}", w.rmt_cke, w.loc_cke, w.loc_mask, w.channel,
                         tail(w.cke));
    case A5Kind::SyncGsa:
    case A5Kind::SyncXn: {
      RegFile f = w.kind == A5Kind::SyncGsa ? RegFile::Gsa : RegFile::Xn;
      std::string s = fmt::format("rmt.{} <- {} ch {}", reg(f, w.rmt_reg), reg(f, w.loc_reg), w.channel);
      if (w.rmt_set_mask) s += fmt::format(" rmt-set {}/{:#x}", w.rmt_set_id, w.rmt_set_mask);
      return s + tail(w.cke);
    }
    case A5Kind::MsReduce: {
      std::string s = fmt::format("MS({:#x}) {}=", w.ms[0], name(w.ms_op));
      for (u32 i = 1; i < w.operands(); ++i) s += fmt::format("{}MS({:#x})", i > 1 ? ", " : " ", w.ms[i]);
      s += fmt::format(" len X{} {}", w.len_xn, name(w.ms_type));
      if (w.cast_en) s += fmt::format(" cast {}", w.cast_en == 1 ? "FP16" : "BFP16");
      return s + tail(w.cke);
    }
  }
  return {};
}

}  // namespace

std::string disasm(CcuIsa isa, const Word& w) {
  std::string_view mn = ccu_mnemonic(isa, w.header());
  if (isa == CcuIsa::A6) {
    A6Word a;
    if (Status s = decode_a6(w, a); !s)
      return fmt::format("<invalid: {}> [{:#06x}{}{}]", s.message(), w.header(), mn.empty() ? "" : " ", mn);
    std::string body = a6_operands(a);
    return body.empty() ? std::string(mn) : fmt::format("{} {}", mn, body);
  }
  A5Word a;
  if (Status s = decode_a5(w, a); !s)
    return fmt::format("<invalid: {}> [{:#06x}{}{}]", s.message(), w.header(), mn.empty() ? "" : " ", mn);
  std::string body = a5_body(a);
  return body.empty() ? std::string(mn) : fmt::format("{} {}", mn, body);
}

std::string disasm_image(CcuIsa isa, const CcuImage& image, u32 from, u32 to) {
  std::string out;
  if (to > image.size) to = image.size;
  for (u32 id = from; id < to; ++id) {
    Word w = word_at(image, id);
    fmt::format_to(std::back_inserter(out), "{:5}  {:04x}  {}\n", id, w.header(), disasm(isa, w));
  }
  return out;
}

}  // namespace cc::ccu
