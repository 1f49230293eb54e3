// Property tests of MSCCL checking (msccl.md): on random small programs the
// execution model agrees with a polling reference, stage 4 agrees with the
// brute-force reference on the mapped graph and with a step-level race
// oracle on the program; every generated algorithm passes at every GPU
// count; every observable mutant of a generated algorithm fails.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>

#include "check/mem_conflict.h"
#include "pipeline/stages.h"
#include "gen/msccl_gen.h"
#include "graph/graph.h"
#include "graph/reach.h"
#include "pipeline/msccl.h"
#include "io/msccl/xml_reader.h"
#include "msccl/analyze.h"
#include "msccl/map.h"
#include "msccl/simulate.h"
#include "msccl/writer.h"
#include "gen_cases.h"
#include "msccl_random.h"
#include "mutant_check.h"
#include "mutate/msccl_faults.h"
#include "mutate/msccl_mutate.h"
#include "reference.h"

namespace cc::test {
namespace {

// The step (gpu index, tb index, step index) a task of a mapped trace stands for.
StepId step_of(const msccl::Program& p, const Trace& t, u32 task) {
  const MscclStepInfo& s = t.msccl.steps[t.msccl.task_step[task]];
  for (u32 g = 0; g < p.gpus.size(); ++g) {
    if (static_cast<u32>(p.gpus[g].id) != s.gpu) continue;
    for (u32 b = 0; b < p.gpus[g].tbs.size(); ++b) {
      if (static_cast<u32>(p.gpus[g].tbs[b].id) != s.tb) continue;
      for (u32 k = 0; k < p.gpus[g].tbs[b].steps.size(); ++k)
        if (p.gpus[g].tbs[b].steps[k].line == s.line && p.gpus[g].tbs[b].steps[k].s == s.s) return {g, b, k};
    }
  }
  ADD_FAILURE() << "no step for task " << task;
  return {};
}

TEST(MscclProperty, RandomProgramsAgreeWithTheReferences) {
  std::mt19937_64 rng(20240519);
  struct Counts {
    int programs = 0, complete = 0, hung = 0, compared = 0, racy = 0, structural = 0;
  } n;
  for (int iter = 0; iter < 6000; ++iter) {
    msccl::Program p = random_msccl_program(rng);
    // Give every step a distinct line, as a file would.
    u32 line = 1;
    for (auto& g : p.gpus)
      for (auto& t : g.tbs)
        for (auto& s : t.steps) s.line = ++line;
    ++n.programs;
    std::string what = fmt::format("program {}:\n{}", iter, msccl::write_xml(p));
    msccl::Options o;
    msccl::Analysis a = msccl::analyze(p, o);
    msccl::SimResult sim = msccl::simulate(a);
    // The execution model against the polling reference.
    RefRun ref = reference_msccl_run(p, o.iterations, a.fifo_calls, a.max_count);
    ASSERT_EQ(sim.complete, ref.complete) << what;
    bool leftover = false;
    for (const msccl::Diag& d : sim.diags) leftover |= d.code == 103;
    ASSERT_EQ(leftover, ref.leftover) << what;
    if (!sim.complete) {
      ++n.hung;
      continue;
    }
    ++n.complete;
    if (a.structural_errors || a.ambiguous) {
      ++n.structural;
      continue;
    }
    for (bool inplace : {false, true}) {
      if (inplace ? !p.inplace : !p.outofplace) continue;
      Result<msccl::MappedCase> m = msccl::map_mode(p, a, sim, inplace);
      ASSERT_TRUE(m.ok()) << m.error().message;
      const Trace& t = m->trace;
      TaskGraph g = build_graph(t);
      // The mapped graph never hangs on its own: a hang is the model's 102.
      ASSERT_TRUE(g.complete) << what;
      ASSERT_TRUE(g.unconsumed_records.empty()) << what;
      // Stage 4 against the brute force on the mapped graph.
      ReferenceReach rr(t, g);
      std::set<std::pair<u32, u32>> expected = reference_conflicts(t, g, rr);
      Reachability reach(t, g);
      FindingSink sink(1u << 20);
      std::vector<ConflictPair> pairs;
      check_mem_conflict(t, g, reach, MemConflictOptions{true, 64, false}, sink, &pairs, nullptr);
      std::set<std::pair<u32, u32>> found;
      for (const ConflictPair& c : pairs) found.insert({c.earlier, c.later});
      ASSERT_EQ(found, expected) << (inplace ? "inplace " : "outofplace ") << what;
      // ... and the step-level oracle on the program itself.
      std::set<std::pair<StepId, StepId>> steps;
      for (auto [x, y] : expected) {
        StepId sx = step_of(p, t, x), sy = step_of(p, t, y);
        steps.insert(sx < sy ? std::make_pair(sx, sy) : std::make_pair(sy, sx));
      }
      ASSERT_EQ(steps, reference_msccl_races(p, inplace)) << (inplace ? "inplace " : "outofplace ") << what;
      ++n.compared;
      n.racy += !expected.empty();
    }
  }
  RecordProperty("programs", n.programs);
  std::printf("random MSCCL programs: %d, complete %d, hung %d, structural %d; compared %d modes, %d with races\n",
              n.programs, n.complete, n.hung, n.structural, n.compared, n.racy);
  EXPECT_GT(n.compared, 300);
  EXPECT_GT(n.racy, 50);
  EXPECT_GT(n.compared - n.racy, 50);
  EXPECT_GT(n.hung, 50);
}

// Every generated algorithm passes in every mode it declares, at every GPU
// count (1-24 and some larger), with the default options and other ones.
TEST(MscclProperty, GeneratedAlgorithmsPassAtEveryGpuCount) {
  std::vector<u32> counts;
  for (u32 r = 1; r <= 24; ++r) counts.push_back(r);
  for (u32 r : {31u, 32u, 48u, 64u}) counts.push_back(r);
  for (const char* algo : {"ring", "all-pairs"})
    for (OpType op : {OpType::AllReduce, OpType::AllGather, OpType::AllToAll})
      for (std::size_t i = 0; i < counts.size(); ++i) {
        u32 r = counts[i];
        if (r > 4 && !sampled(i)) continue;  // the sanitizer run: 1-4 GPUs and every fourth count
        Result<msccl::Program> p = gen::generate_msccl(algo, op, r);
        ASSERT_TRUE(p.ok()) << p.error().message;
        std::string xml = msccl::write_xml(p.value());
        std::vector<msccl::Options> opts(1);
        if (r <= 8) {
          msccl::Options o;
          o.iterations = 3, o.chunk_bytes = 64, o.fifo_depth = 1;
          opts.push_back(o);
        }
        for (const msccl::Options& o : opts) {
          Result<std::vector<MscclCase>> cases = read_msccl_string(xml, "gen.xml", o);
          ASSERT_TRUE(cases.ok()) << cases.error().message;
          for (MscclCase& c : cases.value()) {
            CheckResult res = run_checks(c.trace, std::move(c.findings), CheckOptions{});
            std::string codes;
            for (const Finding& f : res.findings) codes += fmt::format(" {}{}", f.code, f.tag);
            EXPECT_TRUE(res.pass && res.warnings == 0)
                << algo << " " << name(op) << " " << r << " ranks " << c.mode << ":" << codes;
          }
        }
      }
}

// Every mutant at every site of every generated algorithm on 2-4 GPUs:
// either it fails with one of its kind's codes, or it is equivalent — and
// then the independent references (polling execution model, brute-force
// races and notify serialisation, byte-level provenance) find it harmless.
TEST(MscclProperty, EveryObservableMutantFails) {
  std::map<std::string, std::array<int, 3>> score;  // kind -> caught, equivalent, total
  for (const char* algo : {"ring", "all-pairs"})
    for (OpType op : {OpType::AllReduce, OpType::AllGather, OpType::AllToAll})
      for (u32 r : {2u, 3u, 4u}) {
        if (quick_tests() && r == 4) continue;  // the sanitizer run: 2 and 3 GPUs
        Result<msccl::Program> p = gen::generate_msccl(algo, op, r);
        ASSERT_TRUE(p.ok());
        for (const mutate::MscclFaultInfo& f : mutate::msccl_faults()) {
          Result<std::vector<mutate::MscclMutant>> ms = mutate::make_msccl_mutants(p.value(), f.kind, 1, 0, {});
          ASSERT_TRUE(ms.ok()) << ms.error().message;
          for (const mutate::MscclMutant& m : ms.value()) {
            std::string what = fmt::format("{} {} {} ranks: {}: {} -> {}", algo, name(op), r, f.name, m.what,
                                            m.label.text);
            auto& s = score[std::string(f.name)];
            ++s[2];
            if (!m.label.pass) {
              EXPECT_TRUE(m.label.caught) << what;
              s[0] += m.label.caught;
              continue;
            }
            ++s[1];
            // Equivalent: prove it with the references, mode by mode.
            Result<msccl::Program> back = read_msccl_program_string(m.xml, "m.xml");
            ASSERT_TRUE(back.ok());
            msccl::Analysis a = msccl::analyze(back.value(), {});
            RefRun run = reference_msccl_run(back.value(), 2, a.fifo_calls, a.max_count);
            EXPECT_TRUE(run.complete && !run.leftover) << what;
            Result<std::vector<MscclCase>> cases = read_msccl_string(m.xml, "m.xml", {});
            ASSERT_TRUE(cases.ok());
            for (const MscclCase& c : cases.value()) {
              MutantReference ref = reference_verdict(c.trace);
              EXPECT_EQ(ref.why, "") << c.mode << " " << what;
              EXPECT_TRUE(reference_msccl_races(back.value(), c.mode == "inplace").empty()) << what;
            }
          }
        }
      }
  int caught = 0, equivalent = 0, total = 0;
  for (const auto& [kind, s] : score) {
    std::printf("mutants %-14s %4d caught, %4d equivalent, %4d in all\n", kind.c_str(), s[0], s[1], s[2]);
    caught += s[0], equivalent += s[1], total += s[2];
    EXPECT_GT(s[2], 0) << kind;
  }
  std::printf("mutation score: %d of %d observable mutants caught (%d equivalent)\n", caught, total - equivalent,
              equivalent);
  EXPECT_EQ(caught, total - equivalent);
}

}  // namespace
}  // namespace cc::test
