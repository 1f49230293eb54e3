// Every generated schedule passes every stage of collcheck and the
// brute-force provenance reference (algorithms.md §18).
#include <gtest/gtest.h>

#include "pipeline/stages.h"
#include "gen/registry.h"
#include "gen_cases.h"
#include "graph/graph.h"
#include "provenance_ref.h"

namespace cc::test::gen_sweep_test {
namespace {

class GenSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(GenSweep, EveryScheduleIsCorrect) {
  u64 traces = 0, tasks = 0, referenced = 0, i = 0;
  for (const GenCase& c : gen_cases(GetParam(), long_tests())) {
    if (!sampled(i++)) continue;
    Result<Trace> t = gen::generate(c.algo, c.p, true);
    ASSERT_TRUE(t.ok()) << c.label() << ": " << t.error().message;
    ++traces;
    tasks += t->tasks.size();
    CheckResult res = run_checks(*t, {}, CheckOptions{});
    std::string codes;
    for (const Finding& f : res.findings)
      if (f.severity == Severity::Error) codes += std::to_string(f.code) + " " + f.message + "; ";
    EXPECT_TRUE(res.pass) << c.label() << ": " << codes;
    if (!res.pass) continue;
    TaskGraph g = build_graph(*t);
    ProvenanceOutcome prov = reference_provenance(*t, g, 4u << 20);
    if (!prov.ran) continue;
    ++referenced;
    std::string why;
    for (const std::string& s : prov.first_problems) why += s + "; ";
    EXPECT_TRUE(prov.ok()) << c.label() << ": provenance reference: " << why;
  }
  std::printf("%s: %llu traces, %llu tasks, %llu also checked by the provenance reference\n",
              GetParam().c_str(), static_cast<unsigned long long>(traces),
              static_cast<unsigned long long>(tasks), static_cast<unsigned long long>(referenced));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& i) {
  std::string s;
  for (char c : i.param) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Registry, GenSweep, ::testing::ValuesIn(registry_pairs()), test_name);

}  // namespace
}  // namespace cc::test::gen_sweep_test
