// Mutation on generated AIV kernels (`collcheck gen aiv-allgather`,
// `aiv-allreduce`): every AIV fault kind of `collcheck mutate` on a range of
// rank and block counts. A mutant collcheck fails must carry one of its
// kind's codes; a mutant it passes must be harmless by the brute-force
// references run on its expansion (all conflicting pairs, byte-level
// provenance). The score must be 100 % of the observable mutants.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "aiv/expand.h"
#include "gen/aiv.h"
#include "mutant_check.h"
#include "mutate/aiv_faults.h"
#include "mutate/mutants.h"
#include "pipeline/stages.h"
#include "test_util.h"

namespace cc::test {
namespace {

using mutate::FaultKind;

std::vector<gen::AivGenParams> schedules(bool full) {
  std::vector<gen::AivGenParams> out;
  for (OpType op : {OpType::AllGather, OpType::AllReduce})
    for (u32 ranks : {2u, 3u, 4u})
      for (u32 blocks : {1u, 2u, 3u}) {
        if (!full && ranks == 3 && blocks == 3) continue;
        gen::AivGenParams p;
        p.op = op;
        p.ranks = ranks;
        p.blocks = blocks;
        p.count = 96 * ranks;  // several UB chunks per block stay small for the references
        p.dtype = DataType::INT32;
        p.ub_bytes = 512;  // two 256-byte slots: several chunks per block
        out.push_back(p);
      }
  return out;
}

class AivMutation : public ::testing::TestWithParam<FaultKind> {};

TEST_P(AivMutation, EveryObservableMutantIsCaught) {
  FaultKind kind = GetParam();
  const mutate::FaultInfo& f = mutate::fault_info(kind);
  bool full = long_tests();
  u64 generated = 0, killed = 0, equivalent = 0;
  u64 index = 0;
  for (const gen::AivGenParams& p : schedules(full)) {
    if (quick_tests() && index++ % 2) continue;  // the sanitizer run: half the schedules
    Result<Trace> t = gen::generate_aiv(p);
    ASSERT_TRUE(t.ok()) << t.error().message;
    std::string label = fmt::format("{} ranks={} blocks={}", name(p.op), p.ranks, p.blocks);
    {  // the schedule itself passes
      mutate::MutantLabel l = mutate::label_mutant(*t, kind);
      ASSERT_TRUE(l.pass) << label << ": " << l.text;
    }
    std::vector<mutate::Site> sites = mutate::fault_sites(*t, kind);
    EXPECT_FALSE(sites.empty()) << label;
    for (u32 i : mutate::choose_sites(static_cast<u32>(sites.size()), p.ranks * 7 + p.blocks, full ? 0 : quick_tests() ? 4 : 12)) {
      Result<mutate::Applied> a = mutate::apply_fault(*t, kind, sites[i]);
      ASSERT_TRUE(a.ok()) << label << ": " << a.error().message;
      ++generated;
      mutate::MutantLabel l = mutate::label_mutant(a->trace, kind);
      std::string where = label + " | " + a->what + " | " + l.text;
      if (l.pass) {
        Trace x = a->trace;
        Result<AivExpansion> e = expand_aiv(x);
        ASSERT_TRUE(e.ok()) << where;
        MutantReference ref = reference_verdict(x);
        EXPECT_EQ(ref.why, "") << "collcheck passes a mutant the references reject: " << where;
        ++equivalent;
        continue;
      }
      EXPECT_TRUE(l.caught) << "no expected code: " << where;
      killed += l.caught;
    }
  }
  u64 observable = generated - equivalent;
  std::printf("AIV mutation score %-22s %5llu/%-5llu killed (%5.1f%%); %llu equivalent excluded (%s)\n",
              std::string(f.name).c_str(), static_cast<unsigned long long>(killed),
              static_cast<unsigned long long>(observable), observable ? 100.0 * killed / observable : 100.0,
              static_cast<unsigned long long>(equivalent),
              f.equivalent.empty() ? "none possible" : std::string(f.equivalent).c_str());
  EXPECT_GT(generated, 0u);
  EXPECT_EQ(killed, observable);
}

std::vector<FaultKind> aiv_kinds() {
  std::vector<FaultKind> v;
  for (const mutate::FaultInfo& f : mutate::fault_kinds())
    if (mutate::is_aiv_fault(f.kind)) v.push_back(f.kind);
  return v;
}

std::string kind_name(const ::testing::TestParamInfo<FaultKind>& i) {
  std::string s;
  for (char c : mutate::fault_info(i.param).name) s += c == '-' ? '_' : c;
  return s;
}

INSTANTIATE_TEST_SUITE_P(Kinds, AivMutation, ::testing::ValuesIn(aiv_kinds()), kind_name);

// The generators at several sizes pass, with every AIV node kind present.
TEST(AivGen, SchedulesPassAtManySizes) {
  for (OpType op : {OpType::AllGather, OpType::AllReduce})
    for (u32 ranks : {1u, 2u, 5u, 8u})
      for (u32 blocks : {1u, 4u, 7u}) {
        gen::AivGenParams p;
        p.op = op;
        p.ranks = ranks;
        p.blocks = blocks;
        p.count = 1000;
        Result<Trace> t = gen::generate_aiv(p);
        ASSERT_TRUE(t.ok()) << t.error().message;
        Result<AivExpansion> e = expand_aiv(*t);
        ASSERT_TRUE(e.ok());
        CheckResult r = run_checks(*t, std::move(e->findings), CheckOptions{});
        EXPECT_TRUE(r.pass) << name(op) << " ranks=" << ranks << " blocks=" << blocks << ": "
                            << (r.findings.empty() ? "" : r.findings[0].message);
        EXPECT_EQ(r.warnings, 0u) << name(op) << " ranks=" << ranks << " blocks=" << blocks;
      }
}

}  // namespace
}  // namespace cc::test
