#include "mutate/msccl_faults.h"

#include <fmt/format.h>

namespace cc::mutate {

using msccl::Buf;
using msccl::Program;
using msccl::Step;
using msccl::StepType;

const std::vector<MscclFaultInfo>& msccl_faults() {
  static const std::vector<MscclFaultInfo> all = {
      {MscclFault::DropDep, "drop-dep", "a step loses its dependency (depid=-1 deps=-1)", {302, 101, 102},
       "the ordering it gave is implied by other synchronisation (a send and its receive, another dependency)"},
      {MscclFault::SwapSends, "swap-sends",
       "two sends of one thread block (one connection) exchange what they send", {407, 406, 409, 302, 201},
       "the receives put both messages where either belongs"},
      {MscclFault::ShortenCount, "shorten-count", "a step moves one chunk fewer (cnt-1)",
       {201, 102, 103, 406, 407, 409}, "the chunk it no longer moves is written again by a later step"},
      {MscclFault::WrongOffset, "wrong-offset", "a step reads or writes one chunk further (srcoff+1 or dstoff+1)",
       {201, 202, 302, 406, 407, 408, 409}, "the chunk it now touches holds the same data"},
      {MscclFault::DropRecv, "drop-recv", "a receive step (type r) is deleted", {102, 103, 201, 406, 407, 409},
       "no observable effect"},
  };
  return all;
}

const MscclFaultInfo& msccl_fault_info(MscclFault k) { return msccl_faults()[static_cast<std::size_t>(k)]; }

const MscclFaultInfo* find_msccl_fault(std::string_view name) {
  for (const MscclFaultInfo& f : msccl_faults())
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

std::string where(const Program& p, u32 g, u32 t, u32 s) {
  const Step& st = p.gpus[g].tbs[t].steps[s];
  return fmt::format("{}/{}/{} {} (line {})", p.gpus[g].id, p.gpus[g].tbs[t].id, st.s, msccl::name(st.type), st.line);
}

bool data_send(const Step& s) { return s.type == StepType::S && s.cnt > 0; }

// The offset field a step uses: dst when it writes one, else src.
bool uses_dst(const Step& s) { return msccl::writes_dst(s.type); }

}  // namespace

std::vector<MscclSite> msccl_sites(const Program& p, MscclFault k) {
  std::vector<MscclSite> out;
  for (u32 g = 0; g < p.gpus.size(); ++g)
    for (u32 t = 0; t < p.gpus[g].tbs.size(); ++t) {
      const std::vector<Step>& steps = p.gpus[g].tbs[t].steps;
      for (u32 s = 0; s < steps.size(); ++s) {
        const Step& st = steps[s];
        switch (k) {
          case MscclFault::DropDep:
            if (st.depid >= 0) out.push_back({g, t, s});
            break;
          case MscclFault::SwapSends:
            if (!data_send(st)) break;
            for (u32 o = s + 1; o < steps.size(); ++o) {
              const Step& x = steps[o];
              if (!data_send(x) || x.cnt != st.cnt) continue;
              if (x.srcbuf != st.srcbuf || x.srcoff != st.srcoff) out.push_back({g, t, s, o});
              break;
            }
            break;
          case MscclFault::ShortenCount:
            if (st.type != StepType::Nop && st.type != StepType::Unknown && st.cnt > 0) out.push_back({g, t, s});
            break;
          case MscclFault::WrongOffset:
            if (st.type == StepType::Nop || st.type == StepType::Unknown || st.cnt <= 0) break;
            if ((uses_dst(st) && st.dstoff >= 0) || (!uses_dst(st) && msccl::reads_src(st.type) && st.srcoff >= 0))
              out.push_back({g, t, s});
            break;
          case MscclFault::DropRecv:
            if (st.type == StepType::R && st.cnt > 0) out.push_back({g, t, s});
            break;
        }
      }
    }
  return out;
}

Result<MscclApplied> apply_msccl_fault(const Program& p, MscclFault k, const MscclSite& site) {
  if (site.gpu >= p.gpus.size() || site.tb >= p.gpus[site.gpu].tbs.size() ||
      site.step >= p.gpus[site.gpu].tbs[site.tb].steps.size())
    return Error{"mutate: no such step"};
  MscclApplied a{p, {}};
  std::vector<Step>& steps = a.program.gpus[site.gpu].tbs[site.tb].steps;
  Step& st = steps[site.step];
  std::string at = where(p, site.gpu, site.tb, site.step);
  switch (k) {
    case MscclFault::DropDep:
      a.what = fmt::format("dropped the dependency of {} on tb {} level {}", at, st.depid, st.deps);
      st.depid = st.deps = -1;
      break;
    case MscclFault::SwapSends: {
      if (site.other >= steps.size()) return Error{"mutate: no second send"};
      Step& o = steps[site.other];
      a.what = fmt::format("swapped what {} ({}[{}]) and {} ({}[{}]) send", at, msccl::letter(st.srcbuf), st.srcoff,
                           where(p, site.gpu, site.tb, site.other), msccl::letter(o.srcbuf), o.srcoff);
      std::swap(st.srcbuf, o.srcbuf);
      std::swap(st.srcoff, o.srcoff);
      break;
    }
    case MscclFault::ShortenCount:
      a.what = fmt::format("{} moves {} chunk{} instead of {}", at, st.cnt - 1, st.cnt - 1 == 1 ? "" : "s", st.cnt);
      --st.cnt;
      break;
    case MscclFault::WrongOffset:
      if (uses_dst(st)) {
        a.what = fmt::format("{} writes {}[{}] instead of {}[{}]", at, msccl::letter(st.dstbuf), st.dstoff + 1,
                             msccl::letter(st.dstbuf), st.dstoff);
        ++st.dstoff;
      } else {
        a.what = fmt::format("{} reads {}[{}] instead of {}[{}]", at, msccl::letter(st.srcbuf), st.srcoff + 1,
                             msccl::letter(st.srcbuf), st.srcoff);
        ++st.srcoff;
      }
      break;
    case MscclFault::DropRecv:
      a.what = fmt::format("deleted {}", at);
      steps.erase(steps.begin() + site.step);
      break;
  }
  return a;
}

}  // namespace cc::mutate
