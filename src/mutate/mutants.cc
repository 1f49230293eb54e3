#include "mutate/mutants.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "aiv/expand.h"

namespace cc::mutate {

MutantLabel label_results(const std::vector<CheckResult>& results, const std::vector<u16>& kind_codes,
                          std::string_view equivalent) {
  MutantLabel l;
  for (const CheckResult& r : results) {
    l.pass &= r.pass;
    for (const auto& [key, n] : r.totals)
      if (std::get<0>(key) == Severity::Error && n) l.codes.push_back(std::get<1>(key));
  }
  std::sort(l.codes.begin(), l.codes.end());
  l.codes.erase(std::unique(l.codes.begin(), l.codes.end()), l.codes.end());
  for (u16 c : l.codes)
    if (std::find(kind_codes.begin(), kind_codes.end(), c) != kind_codes.end()) l.caught = true;
  if (l.pass) {
    l.text = fmt::format("PASS (equivalent: {})", equivalent.empty() ? "no stage finds an effect" : equivalent);
  } else {
    l.text = "FAIL";
    for (std::size_t i = 0; i < l.codes.size(); ++i) l.text += fmt::format("{}{}", i ? "," : " ", l.codes[i]);
    if (!l.caught) l.text += " (none of the kind's codes)";
  }
  return l;
}

MutantLabel label_mutant(const Trace& m, FaultKind k, const CheckOptions& options) {
  const FaultInfo& f = fault_info(k);
  CheckResult r;
  if (m.aiv.has_input() && !m.aiv.expanded) {
    // Checked as `check` would load it: AIV launches expanded first.
    Trace x = m;
    Result<AivExpansion> e = expand_aiv(x);
    if (e) r = run_checks(x, std::move(e->findings), options);
    else r = run_checks(m, {make_finding(901, StageTag::Runtime, e.error().message)}, options);
  } else {
    r = run_checks(m, {}, options);
  }
  return label_results({std::move(r)}, f.codes, f.equivalent);
}

std::vector<u32> choose_sites(u32 sites, u64 seed, u32 count) {
  std::vector<u32> idx(sites);
  for (u32 i = 0; i < sites; ++i) idx[i] = i;
  if (count == 0 || count >= sites) return idx;
  // A seeded Fisher-Yates with plain modulo draws: the same choice with
  // every standard library.
  std::mt19937_64 rng(seed);
  for (u32 i = sites - 1; i > 0; --i) std::swap(idx[i], idx[rng() % (i + 1)]);
  idx.resize(count);
  std::sort(idx.begin(), idx.end());
  return idx;
}

namespace {

std::string code_list(const std::vector<u16>& codes) {
  std::string s;
  for (u16 c : codes) s += fmt::format("{}{}", s.empty() ? "" : ",", c);
  return s;
}

}  // namespace

std::vector<MutantJob> plan_mutants(const Trace& t, const std::vector<FaultKind>& kinds, u64 seed, u32 count) {
  std::vector<MutantJob> jobs;
  for (FaultKind k : kinds) {
    std::vector<Site> sites = fault_sites(t, k);
    for (u32 i : choose_sites(static_cast<u32>(sites.size()), seed, count)) jobs.push_back({k, sites[i], i});
  }
  return jobs;
}

Result<Mutant> make_mutant(const Trace& t, const MutantJob& job) {
  const FaultInfo& f = fault_info(job.kind);
  Result<Applied> a = apply_fault(t, job.kind, job.site);
  if (!a) return a.error();
  Mutant m{std::move(a->trace), job.kind, job.site, job.site_index, std::move(a->what), {}};
  m.label = label_mutant(m.trace, job.kind);
  m.trace.name = fmt::format("{}{}mutant {}{}: {} | must catch: {} | outcome: {}", t.name,
                             t.name.empty() ? "" : " | ", f.name,
                             f.table.empty() ? "" : fmt::format(" ({})", f.table), m.what, code_list(f.codes),
                             m.label.text);
  return m;
}

Result<std::vector<Mutant>> make_mutants(const Trace& t, FaultKind k, u64 seed, u32 count) {
  std::vector<Mutant> out;
  for (const MutantJob& job : plan_mutants(t, {k}, seed, count)) {
    Result<Mutant> m = make_mutant(t, job);
    if (!m) return m.error();
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace cc::mutate
