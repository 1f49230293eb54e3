#include "pipeline/pipeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "ccu/machine.h"
#include "io/read.h"
#include "pipeline/msccl.h"
#include "pipeline/stopwatch.h"

namespace cc {

Result<bool> expand_cases(std::vector<LoadedCase>& cases, const ExpandOptions& options) {
  if (!options.enabled) return true;
  ccu::CcuCarry carry;
  for (LoadedCase& c : cases) {
    Trace& t = c.read.trace;
    if (t.ccu.sqes.empty()) continue;
    auto t0 = Clock::now();
    CcuExpansionStats st;
    for (Finding& f : expand_ccu(t, options.ccu, &carry, &st)) c.read.findings.push_back(std::move(f));
    c.expand_times.emplace_back("ccu", ms_since(t0));
    c.expand_stats.push_back(fmt::format("ccu: {} missions, {} nodes, {} words executed, {} loops merged",
                                         st.missions, st.nodes, st.steps, st.merged_loops));
  }
  if (!options.aiv_enabled) return true;
  for (LoadedCase& c : cases) {
    Trace& t = c.read.trace;
    if (!t.aiv.has_input() || t.unchecked) continue;
    auto t0 = Clock::now();
    Result<AivExpansion> x = expand_aiv(t, options.aiv);
    if (!x) return x.error();
    for (Finding& f : x->findings) c.read.findings.push_back(std::move(f));
    c.expand_times.emplace_back("aiv", ms_since(t0));
    c.expand_stats.push_back(aiv_stats_line(t, x->stats));
  }
  return true;
}

Result<std::vector<LoadedCase>> load_file(const std::string& path, const InputOptions& input,
                                          const ExpandOptions& expand) {
  Result<std::vector<LoadedCase>> cases = read_file(path, input);
  if (!cases) return cases;
  if (std::any_of(cases->begin(), cases->end(), [](const LoadedCase& c) { return c.msccl != nullptr; })) {
    cases = map_msccl_cases(std::move(cases.value()), input.case_glob, expand.msccl);
    if (!cases) return cases;
  }
  if (Result<bool> x = expand_cases(cases.value(), expand); !x) return x.error();
  return cases;
}

CheckedCase check_case(LoadedCase&& c, const CheckOptions& options) {
  CheckedCase out;
  out.trace = std::move(c.read.trace);
  CheckOptions opt = options;
  if (c.threads) opt.threads = c.threads;
  auto t0 = Clock::now();
  out.graph = build_graph(out.trace, nullptr, std::max(1u, opt.threads));
  double graph_ms = ms_since(t0);
  CheckResult& r = out.result;
  r = run_stages(out.trace, out.graph, std::move(c.read.findings), opt, graph_ms);
  r.input = c.name;
  r.read_ms = c.read_ms;
  // The expansions' time was counted as reading (the batch times load_file).
  for (auto it = c.expand_times.rbegin(); it != c.expand_times.rend(); ++it) {
    r.read_ms = std::max(0.0, r.read_ms - it->second);
    r.times.insert(r.times.begin(), {it->first, it->second});
  }
  r.stats.insert(r.stats.begin(), c.expand_stats.begin(), c.expand_stats.end());
  return out;
}

}  // namespace cc
