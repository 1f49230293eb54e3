#include "msccl/text.h"

#include <fmt/format.h>

namespace cc::msccl {

std::string chunk_text(Buf b, i32 off, i32 cnt) {
  if (cnt == 1) return fmt::format("{}[{}]", letter(b), off);
  if (cnt <= 0) return fmt::format("{}[{}] (cnt={})", letter(b), off, cnt);
  return fmt::format("{}[{}..{}]", letter(b), off, static_cast<i64>(off) + cnt - 1);
}

std::string tb_name(const Program& p, u32 gpu, u32 tb) {
  return fmt::format("rank{}/tb{}", p.gpus[gpu].id, p.gpus[gpu].tbs[tb].id);
}

std::string tx_position(const Analysis& a, const TxRef& r) {
  return step_position(*a.program, r.gpu, r.tb, a.tx(r).first_step);
}

std::string tx_ref(const Analysis& a, const TxRef& r) {
  const Transmission& t = a.tx(r);
  return fmt::format("{} ({}:{})", tx_position(a, r), a.program->file, a.step(r, t.first_step).line);
}

std::string tx_text(const Analysis& a, const TxRef& r) {
  const Transmission& t = a.tx(r);
  const Tb& tb = a.tb(r.gpu, r.tb);
  const TbInfo& ti = a.gpus[r.gpu].tbs[r.tb];
  std::string from = fmt::format("rank {}", ti.recv >= 0 ? ti.recv : tb.recv);
  std::string to = fmt::format("rank {}", ti.send >= 0 ? ti.send : tb.send);
  std::string src = chunk_text(t.srcbuf, t.srcoff, t.cnt);
  std::string dst = chunk_text(t.dstbuf, t.dstoff, t.cnt);
  std::string_view n = name(t.type);
  switch (t.type) {
    case StepType::S: return fmt::format("s {} -> {}", src, to);
    case StepType::R: return fmt::format("r {} -> {}", from, dst);
    case StepType::Rcs: return fmt::format("rcs {} -> {} -> {}", from, dst, to);
    case StepType::Rrs: return fmt::format("rrs {} + {} -> {}", from, src, to);
    case StepType::Rrc: return fmt::format("rrc {} + {} -> {}", from, src, dst);
    case StepType::Rrcs: return fmt::format("rrcs {} + {} -> {} -> {}", from, src, dst, to);
    case StepType::Cpy: return fmt::format("cpy {} -> {}", src, dst);
    case StepType::Re: {
      std::string out = fmt::format("re {} +=", dst);
      for (std::size_t i = 0; i < t.sources.size(); ++i)
        out += fmt::format("{} {}", i ? "," : "", chunk_text(t.srcbuf, tb.steps[t.sources[i]].srcoff, t.cnt));
      if (t.sources.size() > 1) out += fmt::format(" (fused chain of {})", t.sources.size());
      return out;
    }
    case StepType::Nop: return "nop";
    case StepType::Unknown: return fmt::format("{} (unknown step type)", tb.steps[t.first_step].type_name);
  }
  return std::string(n);
}

}  // namespace cc::msccl
