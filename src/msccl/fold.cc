#include "msccl/fold.h"

#include <fmt/format.h>

namespace cc::msccl {

FoldedTb fold_tb(const Tb& tb, u32 gpu_index, u32 tb_index, std::vector<Diag>& diags) {
  FoldedTb out;
  out.tx_of_step.assign(tb.steps.size(), kNone);
  auto at = [&](u32 step) { return std::vector<StepRef>{{gpu_index, tb_index, step}}; };

  // §5.1: dependencies waiting for the next real step, and the steps (nops)
  // whose dependencies they are.
  std::vector<Dep> pending;
  std::vector<u32> pending_steps;
  // The open `re` chain: its (dstbuf, dstoff, srcbuf).
  bool chain = false;
  Buf chain_dst = Buf::O, chain_src = Buf::I;
  i32 chain_off = 0;
  u32 re_count = 0;  // TB-wide, as the runtime counts (a quirk: it only splits chains)
  bool nodep_warned = false;

  for (u32 i = 0; i < tb.steps.size(); ++i) {
    const Step& st = tb.steps[i];
    if (st.type == StepType::Nop) {
      if (st.depid >= 0) {
        pending.push_back({st.depid, st.deps, i});
      } else if (!nodep_warned) {
        nodep_warned = true;
        diags.push_back(make_warning(
            "MSCCL-W-NOP-NODEP", StageTag::GenGraph,
            fmt::format("{}/{}/{} (line {}): a nop without a dependency does nothing; the runtime drops it, so "
                        "the hidden step counter of tb {} no longer matches s from here on.",
                        gpu_index, tb.id, st.s, st.line, tb.id),
            at(i)));
      }
      pending_steps.push_back(i);
      continue;
    }
    if (st.depid >= 0) pending.push_back({st.depid, st.deps, i});
    bool continuation = st.type == StepType::Re && chain && st.dstbuf == chain_dst && st.dstoff == chain_off &&
                        st.srcbuf == chain_src && st.depid == -1;
    if (continuation) {
      Transmission& t = out.tx.back();
      t.sources.push_back(i);
      t.last_step = i;
      t.cnt = st.cnt;
      t.hasdep = st.hasdep;
      out.tx_of_step[i] = static_cast<u32>(out.tx.size() - 1);
    } else {
      Transmission t;
      t.type = st.type;
      t.first_step = t.last_step = i;
      t.sources.push_back(i);
      t.srcbuf = st.srcbuf;
      t.dstbuf = st.dstbuf;
      t.srcoff = st.srcoff;
      t.dstoff = st.dstoff;
      t.cnt = st.cnt;
      t.hasdep = st.hasdep;
      t.dep_begin = static_cast<u32>(out.deps.size());
      t.dep_count = static_cast<u32>(pending.size());
      out.deps.insert(out.deps.end(), pending.begin(), pending.end());
      if (!pending.empty() && st.depid < 0) {
        Diag d = make_diag(101, StageTag::GenGraph,
                           fmt::format("{}/{}/{} ({}, line {}): the nops before it carry dependencies but the step "
                                       "itself has none; the runtime refuses such a file (a nop chain must end "
                                       "with a step that has a dependency).",
                                       gpu_index, tb.id, st.s, name(st.type), st.line),
                           at(i));
        d.details.push_back(fmt::format("First nop of the chain: step s={} (line {})", tb.steps[pending.front().step].s,
                                        tb.steps[pending.front().step].line));
        diags.push_back(std::move(d));
      }
      if (st.type == StepType::Unknown)
        diags.push_back(make_diag(101, StageTag::GenGraph,
                                  fmt::format("{}/{}/{} (line {}): unknown step type \"{}\"; it cannot become a "
                                              "node.",
                                              gpu_index, tb.id, st.s, st.line, st.type_name),
                                  at(i)));
      out.tx.push_back(std::move(t));
      u32 index = static_cast<u32>(out.tx.size() - 1);
      out.tx_of_step[i] = index;
      for (u32 n : pending_steps) out.tx_of_step[n] = index;
      pending.clear();
      pending_steps.clear();
    }
    if (st.type == StepType::Re) {
      ++re_count;
      if (st.hasdep || re_count == kMaxReduceFusion) {
        chain = false;
      } else {
        chain = true;
        chain_dst = st.dstbuf;
        chain_off = st.dstoff;
        chain_src = st.srcbuf;
      }
    } else {
      chain = false;
    }
  }
  if (!pending_steps.empty()) {
    // Nops after the last transmission (or only followed by continuations of
    // a fused chain, which take no dependency): the runtime drops them.
    u32 first = pending_steps.front();
    u32 n = static_cast<u32>(pending_steps.size());
    diags.push_back(make_warning(
        "MSCCL-W-NOP-TRAILING", StageTag::GenGraph,
        fmt::format("{}/{}/{} (line {}): {} nop{} at the end of tb {} carr{} dependencies no step takes; the "
                    "runtime drops {}.",
                    gpu_index, tb.id, tb.steps[first].s, tb.steps[first].line, n, n == 1 ? "" : "s", tb.id,
                    n == 1 ? "ies" : "y", n == 1 ? "it" : "them"),
        at(first)));
  }

  // §5.2: the hidden step counter.
  i32 v = 0;
  bool step_warned = false;
  for (Transmission& t : out.tx) {
    if (t.dep_count >= 1) v += static_cast<i32>(t.dep_count) - 1;
    if (t.type == StepType::Re && t.cnt > 0) v += static_cast<i32>(t.sources.size()) - 1;
    t.level = v;
    const Step& last = tb.steps[t.last_step];
    if (!step_warned && last.s != v) {
      step_warned = true;
      diags.push_back(make_warning(
          "MSCCL-W-STEP-NUMBER", StageTag::GenGraph,
          fmt::format("{}/{}/{} ({}, line {}) is at level {} of the runtime's hidden step counter of tb {}; "
                      "dependencies on this thread block refer to the counter, not to s.",
                      gpu_index, tb.id, last.s, name(last.type), last.line, v, tb.id),
          {{gpu_index, tb_index, t.last_step}}));
    }
    ++v;
  }
  return out;
}

}  // namespace cc::msccl
