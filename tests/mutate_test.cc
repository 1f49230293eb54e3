// Mutation sweep (algorithms.md §17, §18.5): every fault kind on generated
// schedules. A mutant collcheck fails must carry one of its kind's codes; a
// mutant collcheck passes must be proven harmless by the brute-force
// references (reachability by bitsets, all conflicting pairs, notify
// serialisation, byte-level provenance). Prints the mutation score per kind.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "mutate/mutants.h"
#include "gen/registry.h"
#include "gen_cases.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test {
namespace {

using mutate::FaultKind;

class MutationSweep : public ::testing::TestWithParam<FaultKind> {};

TEST_P(MutationSweep, EveryObservableMutantIsCaught) {
  FaultKind kind = GetParam();
  const mutate::FaultInfo& f = mutate::fault_info(kind);
  bool full = long_tests();
  bool semantic = semantic_stage_runs();
  u64 generated = 0, killed = 0, equivalent = 0, awaiting = 0, schedules = 0;
  std::vector<std::string> examples;
  u64 i = 0;
  for (const GenCase& c : mutation_schedules(full)) {
    if (!sampled(i++)) continue;
    Result<Trace> t = gen::generate(c.algo, c.p, true);
    ASSERT_TRUE(t.ok()) << c.label();
    ++schedules;
    std::vector<mutate::Site> sites = mutate::fault_sites(*t, kind);
    for (u32 i : mutate::choose_sites(static_cast<u32>(sites.size()), c.p.seed, full ? 4 : 1)) {
      Result<mutate::Applied> a = mutate::apply_fault(*t, kind, sites[i]);
      ASSERT_TRUE(a.ok()) << c.label() << ": " << a.error().message;
      ++generated;
      mutate::MutantLabel l = mutate::label_mutant(a->trace, kind);
      std::string where = c.label() + " | " + a->what + " | " + l.text;
      MutantReference ref = reference_verdict(a->trace, l.pass);
      // The semantic stage and the byte-level reference agree on every
      // mutant whose tasks are all valid (201/202 leave a task's effect open).
      bool valid = std::none_of(l.codes.begin(), l.codes.end(), [](u16 c) { return c == 201 || c == 202; });
      if (semantic && ref.provenance_ran && valid) {
        EXPECT_EQ(has_semantic_error(l.codes), !ref.provenance_ok) << where << " | reference: " << ref.why;
      }
      if (l.pass) {
        if (!semantic && !ref.provenance_ok) {
          ++awaiting;  // a semantic fault, found once stage 5 runs
          continue;
        }
        EXPECT_EQ(ref.why, "") << "collcheck passes a mutant the references reject: " << where;
        ++equivalent;
        if (examples.size() < 3) examples.push_back(a->what);
        continue;
      }
      EXPECT_TRUE(l.caught) << "no expected code: " << where;
      killed += l.caught;
    }
  }
  u64 observable = generated - equivalent - awaiting;
  std::printf("mutation score %-27s %5llu/%-5llu killed (%5.1f%%); %llu equivalent excluded (%s); %llu schedules%s\n",
              std::string(f.name).c_str(), static_cast<unsigned long long>(killed),
              static_cast<unsigned long long>(observable), observable ? 100.0 * killed / observable : 100.0,
              static_cast<unsigned long long>(equivalent),
              f.equivalent.empty() ? "none possible" : std::string(f.equivalent).c_str(),
              static_cast<unsigned long long>(schedules),
              awaiting ? fmt::format("; {} semantic faults await stage 5", awaiting).c_str() : "");
  for (const std::string& e : examples) std::printf("    equivalent: %s\n", e.c_str());
  EXPECT_EQ(killed, observable);
}

std::vector<FaultKind> all_kinds() {
  std::vector<FaultKind> v;
  for (const mutate::FaultInfo& f : mutate::fault_kinds()) v.push_back(f.kind);
  return v;
}

std::string kind_name(const ::testing::TestParamInfo<FaultKind>& i) {
  std::string s;
  for (char c : mutate::fault_info(i.param).name) s += c == '-' ? '_' : c;
  return s;
}

INSTANTIATE_TEST_SUITE_P(Kinds, MutationSweep, ::testing::ValuesIn(all_kinds()), kind_name);

}  // namespace
}  // namespace cc::test

namespace cc::test {
namespace {

Trace small_ring() {
  gen::GenParams p;
  p.op = OpType::AllReduce;
  p.ranks = 3;
  p.count = 100;
  return *gen::generate("ring", p, true);
}

// The byte-level reference must itself be able to fail.
TEST(ProvenanceReference, RejectsKnownFaults) {
  Trace t = small_ring();
  EXPECT_EQ(reference_verdict(t).why, "");
  for (FaultKind k : {FaultKind::DropFinalCopy, FaultKind::DuplicateReduce, FaultKind::WrongReduceOp,
                      FaultKind::ShortenCopy, FaultKind::ShiftSrc}) {
    std::vector<mutate::Site> sites = mutate::fault_sites(t, k);
    ASSERT_FALSE(sites.empty());
    Result<mutate::Applied> a = mutate::apply_fault(t, k, sites.back());
    ASSERT_TRUE(a.ok());
    MutantReference r = reference_verdict(a->trace);
    EXPECT_FALSE(r.provenance_ok) << mutate::fault_info(k).name << ": " << a->what;
  }
}

TEST(MutateCli, WritesLabelledMutants) {
  std::string dir = temp_path("mutants");
  std::string in = temp_path("ag.jsonl");
  ASSERT_EQ(run_collcheck("gen ring --op-type AllGather --ranks 4 --count 64 -o " + in).status, 0);
  RunResult m = run_collcheck("mutate " + in + " --kind drop-wait --count 2 --seed 5 -o " + dir);
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.out.find("| FAIL 103"), std::string::npos) << m.out;
  std::string first = m.out.substr(0, m.out.find(':'));
  RunResult c = run_collcheck("check -q " + first);
  EXPECT_EQ(c.status, 1);
  RunResult again = run_collcheck("mutate " + in + " --kind drop-wait --count 2 --seed 5 -o " + dir);
  EXPECT_EQ(again.out, m.out);  // deterministic for a seed
  Result<ReadTrace> read = read_jsonl_file(first);
  ASSERT_TRUE(read.ok());
  const Trace& t = read->trace;
  EXPECT_NE(t.name.find("mutant drop-wait (F1, F2): deleted "), std::string::npos) << t.name;
  EXPECT_NE(t.name.find("| must catch: 103 | outcome: FAIL 103"), std::string::npos) << t.name;
  RunResult l = run_collcheck("mutate --list");
  EXPECT_EQ(l.status, 0);
  for (const mutate::FaultInfo& f : mutate::fault_kinds()) EXPECT_NE(l.out.find(f.name), std::string::npos) << f.name;
  EXPECT_EQ(run_collcheck("mutate " + in + " --kind no-such-kind").status, 2);
  EXPECT_EQ(run_collcheck("mutate " + in).status, 2);
  EXPECT_EQ(run_collcheck("mutate /no/such/file --kind drop-wait").status, 2);
  EXPECT_EQ(run_collcheck("mutate " + in + " --kind drop-slave-wait -o " + dir).status, 2);  // no slave streams
}

}  // namespace
}  // namespace cc::test
