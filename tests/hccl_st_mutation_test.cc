// Mutation on real schedules: `collcheck mutate` applied to each of HCCL's
// own task dumps in tests/cases/hccl-st (every fault kind that applies, at
// places chosen by several seeds), each mutant written to a file and checked
// from it by the binary. A mutant collcheck fails must carry one of its
// kind's codes; a mutant collcheck passes must be proven harmless by the
// brute-force references (mutant_check.h). Prints the mutation score per
// operator; `COLLCHECK_LONG_TESTS=1` takes three seeds and two places per
// kind and seed instead of one.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "mutate/faults.h"
#include "gen_cases.h"
#include "io/jsonl/reader.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test::hccl_st_mutation_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> dumps() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(source_dir()) / "tests" / "cases" / "hccl-st")) {
    std::string name = e.path().filename().string();
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".log.gz") == 0)
      out.push_back(name.substr(0, name.size() - 7));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Checked {
  std::string verdict;
  std::vector<u16> errors;  // error codes, sorted
};

// `check --json` over a directory of mutants: file -> outcome.
std::map<std::string, Checked> check_dir(const fs::path& dir) {
  std::string json = (dir / "report.json").string();
  RunResult r = run_collcheck(fmt::format("check -q -j1 --json '{}' '{}'", json, dir.string()));
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.err;
  std::map<std::string, Checked> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(json).get(doc) != simdjson::SUCCESS) {
    ADD_FAILURE() << "no report for " << dir;
    return out;
  }
  for (simdjson::dom::element in : doc["inputs"].get_array()) {
    Checked& c = out[fs::path(std::string(std::string_view(in["file"]))).filename().string()];
    c.verdict = std::string(std::string_view(in["verdict"]));
    for (simdjson::dom::element n : in["counts"].get_array())
      if (std::string_view(n["severity"]) == "error") c.errors.push_back(u16(int64_t(n["code"])));
    std::sort(c.errors.begin(), c.errors.end());
  }
  return out;
}

class HcclStMutation : public ::testing::TestWithParam<std::string> {};

TEST_P(HcclStMutation, EveryObservableMutantIsCaught) {
  const std::string& name = GetParam();
  std::string dump = source_dir() + "/tests/cases/hccl-st/" + name + ".log.gz";
  std::vector<std::string> all = dumps();
  if (!sampled(std::find(all.begin(), all.end(), name) - all.begin()))
    GTEST_SKIP() << "COLLCHECK_QUICK_TESTS: every fourth dump";
  RunResult original = run_collcheck(fmt::format("check -q '{}'", dump));
  if (original.status == 1) GTEST_SKIP() << "the original fails: its mutants say nothing";
  ASSERT_EQ(original.status, 0) << original.err;
  fs::path dir = temp_path("hccl-st-mutants-" + name);
  fs::remove_all(dir);
  bool full = long_tests();
  for (u64 seed : full ? std::vector<u64>{1, 2, 3} : std::vector<u64>{1}) {
    RunResult m = run_collcheck(
        fmt::format("mutate '{}' --kind all --count {} --seed {} -o '{}'", dump, full ? 2 : 1, seed, dir.string()));
    ASSERT_EQ(m.status, 0) << m.err;
  }
  std::map<std::string, Checked> checked = check_dir(dir);
  u64 killed = 0, equivalent = 0, mutants = 0, unverified = 0;
  for (const auto& [file, c] : checked) {
    // CASE.KIND.SITE.jsonl; the case name has dots of its own.
    std::string stem = file.substr(0, file.rfind('.'));
    stem = stem.substr(0, stem.rfind('.'));
    const mutate::FaultInfo* kind = mutate::find_fault(stem.substr(stem.rfind('.') + 1));
    ASSERT_NE(kind, nullptr) << file;
    ++mutants;
    std::string where = name + ": " + file;
    if (c.verdict == "FAIL") {
      bool caught = std::any_of(c.errors.begin(), c.errors.end(), [&](u16 code) {
        return std::find(kind->codes.begin(), kind->codes.end(), code) != kind->codes.end();
      });
      EXPECT_TRUE(caught) << "no expected code: " << where;
      killed += caught;
      continue;
    }
    Result<ReadTrace> t = read_jsonl_file((dir / file).string());
    ASSERT_TRUE(t.ok()) << t.error().message;
    // One dump's result is 9.6 MB per rank: too large for the byte-level
    // reference, so its PASS mutants are judged by the others alone.
    MutantReference ref = reference_verdict(t->trace, true, false);
    EXPECT_EQ(ref.why, "") << "collcheck passes a mutant the references reject: " << where;
    ++equivalent;
    unverified += !ref.provenance_ran;
  }
  EXPECT_GT(mutants, 0u);
  u64 observable = mutants - equivalent;
  std::printf("mutation score %-90s %4llu/%-4llu killed (%5.1f%%), %llu equivalent%s\n", name.c_str(),
              static_cast<unsigned long long>(killed), static_cast<unsigned long long>(observable),
              observable ? 100.0 * killed / observable : 100.0, static_cast<unsigned long long>(equivalent),
              unverified ? fmt::format(" ({} without the byte-level reference)", unverified).c_str() : "");
  EXPECT_EQ(killed, observable);
  fs::remove_all(dir);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& i) {
  std::string s = i.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Dumps, HcclStMutation, ::testing::ValuesIn(dumps()), test_name);

}  // namespace
}  // namespace cc::test::hccl_st_mutation_test
