#include "mutate/msccl_mutate.h"

#include <fmt/format.h>

#include "mutate/mutants.h"
#include "pipeline/msccl.h"
#include "msccl/writer.h"

namespace cc::mutate {

MscclLabel label_msccl_mutant(const std::string& xml, MscclFault k, const msccl::Options& options,
                              const CheckOptions& check) {
  const MscclFaultInfo& f = msccl_fault_info(k);
  Result<std::vector<MscclCase>> cases = read_msccl_string(xml, "mutant.xml", options);
  if (!cases) {
    // A mutant the reader refuses would be a bug of the mutation.
    MscclLabel l;
    l.pass = false;
    l.text = "FAIL (unreadable: " + cases.error().message + ")";
    return l;
  }
  std::vector<CheckResult> results;
  for (MscclCase& c : cases.value()) results.push_back(run_checks(c.trace, std::move(c.findings), check));
  return label_results(results, f.codes, f.equivalent);
}

Result<std::vector<MscclMutant>> make_msccl_mutants(const msccl::Program& p, MscclFault k, u64 seed, u32 count,
                                                   const msccl::Options& options) {
  const MscclFaultInfo& f = msccl_fault_info(k);
  std::string codes;
  for (u16 c : f.codes) codes += fmt::format("{}{}", codes.empty() ? "" : ",", c);
  std::vector<MscclSite> sites = msccl_sites(p, k);
  std::vector<MscclMutant> out;
  for (u32 i : choose_sites(static_cast<u32>(sites.size()), seed, count)) {
    Result<MscclApplied> a = apply_msccl_fault(p, k, sites[i]);
    if (!a) return a.error();
    MscclMutant m{{}, k, sites[i], i, std::move(a->what), {}};
    m.label = label_msccl_mutant(msccl::write_xml(a->program), k, options);
    msccl::Program& mp = a->program;
    mp.name = fmt::format("{}{}mutant {}: {} | must catch: {} | outcome: {}", p.name, p.name.empty() ? "" : " | ",
                          f.name, m.what, codes, m.label.text);
    m.xml = msccl::write_xml(mp);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace cc::mutate
