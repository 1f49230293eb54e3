// MSCCL algorithm files (msccl.md): the reader, the runtime's folding and
// hidden step counter against hand-computed counters, the execution model,
// the mapping, convert, gen and the CLI.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "pipeline/stages.h"
#include "gen/msccl_gen.h"
#include "io/detect.h"
#include "pipeline/msccl.h"
#include "io/msccl/xml_reader.h"
#include "model/describe.h"
#include "msccl/analyze.h"
#include "msccl/fold.h"
#include "msccl/simulate.h"
#include "msccl/writer.h"
#include "gen_cases.h"
#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;
using msccl::Buf;
using msccl::StepType;

// ---------------------------------------------------------------- helpers

msccl::Step step(int s, StepType type, Buf sb, int so, Buf db, int dof, int cnt = 1, int depid = -1, int deps = -1,
                 bool hasdep = false) {
  msccl::Step x;
  x.s = s, x.type = type, x.type_name = std::string(msccl::name(type));
  x.srcbuf = sb, x.srcoff = so, x.dstbuf = db, x.dstoff = dof, x.cnt = cnt;
  x.depid = depid, x.deps = deps, x.hasdep = hasdep;
  return x;
}
msccl::Step nop(int s, int depid = -1, int deps = -1) { return step(s, StepType::Nop, Buf::I, -1, Buf::O, -1, 0, depid, deps); }
msccl::Step re(int s, int src, int dst, int depid = -1, int deps = -1, bool hasdep = false, int cnt = 1) {
  return step(s, StepType::Re, Buf::S, src, Buf::O, dst, cnt, depid, deps, hasdep);
}
msccl::Step cpy(int s, int depid = -1, int deps = -1, bool hasdep = false) {
  return step(s, StepType::Cpy, Buf::I, 0, Buf::O, 0, 1, depid, deps, hasdep);
}

struct Folded {
  msccl::FoldedTb f;
  std::vector<msccl::Diag> diags;
  std::vector<int> levels() const {
    std::vector<int> v;
    for (const auto& t : f.tx) v.push_back(t.level);
    return v;
  }
  std::vector<int> sources() const {
    std::vector<int> v;
    for (const auto& t : f.tx) v.push_back(static_cast<int>(t.sources.size()));
    return v;
  }
  std::vector<int> deps() const {
    std::vector<int> v;
    for (const auto& t : f.tx) v.push_back(static_cast<int>(t.dep_count));
    return v;
  }
  std::set<std::string> tags() const {
    std::set<std::string> s;
    for (const auto& d : diags) s.insert(d.code ? std::to_string(d.code) : d.tag);
    return s;
  }
};

Folded fold(std::vector<msccl::Step> steps) {
  msccl::Tb tb;
  tb.steps = std::move(steps);
  Folded out;
  out.f = msccl::fold_tb(tb, 0, 0, out.diags);
  return out;
}

// Error codes (and named-warning tags) of every case of an MSCCL text.
std::set<std::string> outcome(const std::string& xml, const msccl::Options& o = {}) {
  Result<std::vector<MscclCase>> cases = read_msccl_string(xml, "t.xml", o);
  EXPECT_TRUE(cases.ok()) << (cases.ok() ? "" : cases.error().message);
  std::set<std::string> out;
  if (!cases) return out;
  for (MscclCase& c : cases.value()) {
    CheckResult r = run_checks(c.trace, std::move(c.findings), CheckOptions{});
    for (const auto& [key, n] : r.totals) {
      const auto& [sev, code, tag] = key;
      out.insert(code ? std::to_string(code) : tag);
    }
  }
  return out;
}

// ---------------------------------------------------------------- the hidden step counter (§5)

// Every nop carries a dependency and s runs 0, 1, 2, ...: the level of each
// transmission is the s of its last step.
TEST(MscclCounter, NopsFoldIntoTheNextStep) {
  Folded x = fold({cpy(0, -1, -1, true), nop(1, 1, 0), nop(2, 2, 0), cpy(3, 3, 0, true), cpy(4)});
  EXPECT_EQ(x.levels(), (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(x.deps(), (std::vector<int>{0, 3, 0}));
  EXPECT_TRUE(x.tags().empty());
  // The nops belong to the transmission that takes their dependencies.
  EXPECT_EQ(x.f.tx_of_step, (std::vector<u32>{0, 1, 1, 1, 2}));
}

TEST(MscclCounter, FusedReductionChainAdvancesByItsSources) {
  // re s[0], s[1], s[2] into o[0]: one transmission of three sources at
  // level 2 (= the s of its last step); the next step is level 3.
  Folded x = fold({re(0, 0, 0), re(1, 1, 0), re(2, 2, 0, -1, -1, true), cpy(3)});
  EXPECT_EQ(x.sources(), (std::vector<int>{3, 1}));
  EXPECT_EQ(x.levels(), (std::vector<int>{2, 3}));
  EXPECT_TRUE(x.tags().empty());
}

TEST(MscclCounter, ChainsBreakOnAnotherDestinationADependencyOrHasdep) {
  // dst o[0] then o[1]: two chains; a re with a dependency starts a new one;
  // hasdep=1 closes one.
  Folded x = fold({re(0, 0, 0), re(1, 1, 1), re(2, 2, 1, 0, 0), re(3, 3, 1, -1, -1, true), re(4, 4, 1)});
  EXPECT_EQ(x.sources(), (std::vector<int>{1, 1, 2, 1}));
  EXPECT_EQ(x.levels(), (std::vector<int>{0, 1, 3, 4}));
}

TEST(MscclCounter, NopsInsideAChainWaitForTheNextTransmission) {
  // A nop does not close the chain; its dependency goes to the next real
  // step that starts a transmission, here the cpy (which carries one of its
  // own), so the counter advances there, and the chain is one level short of
  // its last s (the runtime's counter, not s, is what dependencies mean).
  Folded x = fold({re(0, 0, 0, 1, 0), re(1, 1, 0), nop(2, 2, 0), re(3, 2, 0, -1, -1, true), cpy(4, 3, 0)});
  EXPECT_EQ(x.sources(), (std::vector<int>{3, 1}));
  EXPECT_EQ(x.deps(), (std::vector<int>{1, 2}));
  // chain: d=1 (+0), m=3 (+2) -> 2; cpy: d=2 (+1) -> 4.
  EXPECT_EQ(x.levels(), (std::vector<int>{2, 4}));
  EXPECT_EQ(x.tags(), (std::set<std::string>{"MSCCL-W-STEP-NUMBER"}));
}

TEST(MscclCounter, TheSixteenthReOfAThreadBlockSplitsItsChain) {
  // The runtime counts re steps per thread block (not per chain) and splits
  // the chain that reaches exactly 16; later chains never split.
  std::vector<msccl::Step> steps;
  for (int i = 0; i < 20; ++i) steps.push_back(re(i, i, 0));
  steps.push_back(cpy(20));
  for (int i = 0; i < 20; ++i) steps.push_back(re(21 + i, i, 1));
  Folded x = fold(steps);
  EXPECT_EQ(x.sources(), (std::vector<int>{16, 4, 1, 20}));
  // Levels still equal the last s of each transmission.
  EXPECT_EQ(x.levels(), (std::vector<int>{15, 19, 20, 40}));
  EXPECT_TRUE(x.tags().empty());
}

TEST(MscclCounter, AChainOfEmptyStepsDoesNotAdvance) {
  // cnt=0: the kernel's reduce loop never runs, so m-1 is not added.
  Folded x = fold({re(0, 0, 0, -1, -1, false, 0), re(1, 1, 0, -1, -1, true, 0), cpy(2)});
  EXPECT_EQ(x.sources(), (std::vector<int>{2, 1}));
  EXPECT_EQ(x.levels(), (std::vector<int>{0, 1}));
  EXPECT_EQ(x.tags(), (std::set<std::string>{"MSCCL-W-STEP-NUMBER"}));
}

TEST(MscclCounter, ANopWithoutDependencyIsDropped) {
  Folded x = fold({cpy(0, -1, -1, true), nop(1), cpy(2, 0, 0)});
  EXPECT_EQ(x.levels(), (std::vector<int>{0, 1}));
  EXPECT_EQ(x.tags(), (std::set<std::string>{"MSCCL-W-NOP-NODEP", "MSCCL-W-STEP-NUMBER"}));
}

TEST(MscclCounter, ANopChainMustEndWithADependency) {
  Folded x = fold({nop(0, 1, 0), cpy(1)});
  EXPECT_EQ(x.tags(), (std::set<std::string>{"101", "MSCCL-W-STEP-NUMBER"}));
  Folded y = fold({cpy(0), nop(1, 1, 0)});
  EXPECT_EQ(y.tags(), (std::set<std::string>{"MSCCL-W-NOP-TRAILING"}));
  EXPECT_EQ(y.f.tx.size(), 1u);
  EXPECT_EQ(y.f.tx_of_step[1], kNone);
}

// A dependency is a monotone wait on the counter: (tb 0, level 3) is
// released by the first publication of level >= 3; a later one is DEP-LATE.
TEST(MscclCounter, DependenciesReleaseOnTheFirstPublicationAtOrAboveTheLevel) {
  std::string xml = R"(<algo name="t" proto="Simple" nchannels="1" nchunksperloop="1" ngpus="1" coll="allreduce"
      inplace="0" outofplace="1" minBytes="0" maxBytes="0">
  <gpu id="0" i_chunks="1" o_chunks="1" s_chunks="3">
    <tb id="0" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="s" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="nop" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="-1" cnt="0" depid="2" deps="0" hasdep="0"/>
      <step s="2" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="2" deps="0" hasdep="1"/>
    </tb>
    <tb id="1" send="-1" recv="-1" chan="0">
      <step s="0" type="nop" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="-1" cnt="0" depid="-1" deps="-1" hasdep="0"/>
      <step s="0" type="cpy" srcbuf="s" srcoff="0" dstbuf="s" dstoff="1" cnt="1" depid="0" deps="1" hasdep="1"/>
    </tb>
    <tb id="2" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="s" dstoff="2" cnt="1" depid="-1" deps="-1" hasdep="1"/>
    </tb>
  </gpu>
</algo>
)";
  // TB 0: cpy at level 0 (not published), {nop, cpy} at level 2 (published).
  // TB 1 waits for level 1: released by level 2 (DEP-LATE), after TB 0's
  // first cpy wrote the scratch chunk TB 1 reads, so there is no race.
  Result<msccl::Program> p = read_msccl_program_string(xml, "t.xml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  msccl::Analysis a = msccl::analyze(p.value(), {});
  const msccl::TbInfo& t0 = a.gpus[0].tbs[0];
  const msccl::TbInfo& t1 = a.gpus[0].tbs[1];
  ASSERT_EQ(t0.fold.tx.size(), 2u);
  EXPECT_EQ(t0.fold.tx[1].level, 2);
  EXPECT_EQ(t1.fold.tx[0].level, 0);
  ASSERT_EQ(t1.dep_pub.size(), 1u);
  EXPECT_EQ(t1.dep_pub[0], 1u);  // TB 0's transmission at level 2
  EXPECT_EQ(t0.dep_pub, (std::vector<u32>{0, 0}));
  std::set<std::string> got = outcome(xml);
  EXPECT_EQ(got, (std::set<std::string>{"MSCCL-W-DEP-LATE", "MSCCL-W-NOP-NODEP"}));
  // Without the late publication TB 1 would race with TB 0's first cpy.
  std::string early = xml;
  early.replace(early.find("depid=\"0\" deps=\"1\""), 18, "depid=\"2\" deps=\"0\"");
  EXPECT_TRUE(outcome(early).count("302"));
}

// ---------------------------------------------------------------- reader

TEST(MscclReader, RecognisesTheFirstElement) {
  EXPECT_TRUE(looks_like_msccl("<algo name=\"x\">"));
  EXPECT_TRUE(looks_like_msccl("\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- a -->\n  <algo\n ngpus=\"1\">"));
  EXPECT_FALSE(looks_like_msccl("<algorithm>"));
  EXPECT_FALSE(looks_like_msccl("<!DOCTYPE algo><algo>"));
  EXPECT_FALSE(looks_like_msccl("{\"format\":\"collcheck-trace\"}"));
  EXPECT_FALSE(looks_like_msccl("<!-- <algo> never closed"));
  EXPECT_EQ(detect_format_text("<?xml version=\"1.0\"?><algo>", true), InputFormat::Msccl);
  EXPECT_EQ(parse_format("msccl"), InputFormat::Msccl);
}

TEST(MscclReader, ReadsEveryAttributeWithItsLine) {
  std::string xml = slurp(source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml");
  Result<msccl::Program> p = read_msccl_program_string(xml, "ex1.xml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  const msccl::Program& g = p.value();
  EXPECT_EQ(g.name, "ring_allgather_4");
  EXPECT_EQ(g.ngpus, 4);
  EXPECT_EQ(g.nchunksperloop, 4);
  EXPECT_EQ(g.coll, msccl::Coll::AllGather);
  EXPECT_EQ(g.proto, msccl::Proto::Simple);
  EXPECT_FALSE(g.inplace);
  EXPECT_TRUE(g.outofplace);
  ASSERT_EQ(g.gpus.size(), 4u);
  const msccl::Tb& tb = g.gpus[2].tbs[1];
  EXPECT_EQ(tb.send, 3);
  EXPECT_EQ(tb.recv, 1);
  ASSERT_EQ(tb.steps.size(), 6u);
  EXPECT_EQ(tb.steps[0].type, StepType::S);
  EXPECT_EQ(tb.steps[0].depid, 0);
  EXPECT_EQ(tb.steps[1].type, StepType::R);
  EXPECT_EQ(tb.steps[1].dstoff, 1);
  // Each element knows its line.
  std::istringstream lines(xml);
  std::string line;
  u32 no = 0;
  while (std::getline(lines, line)) {
    ++no;
    if (line.find("<step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"1\"") != std::string::npos) break;
  }
  EXPECT_EQ(tb.steps[1].line, no);
  EXPECT_TRUE(g.unknown.empty());
  EXPECT_TRUE(g.missing_legacy.empty());
}

TEST(MscclReader, WriterRoundTrips) {
  for (const char* algo : {"ring", "all-pairs"})
    for (OpType op : {OpType::AllReduce, OpType::AllGather, OpType::AllToAll}) {
      Result<msccl::Program> p = gen::generate_msccl(algo, op, 5);
      ASSERT_TRUE(p.ok());
      std::string xml = msccl::write_xml(p.value());
      Result<msccl::Program> back = read_msccl_program_string(xml, "x.xml");
      ASSERT_TRUE(back.ok()) << back.error().message;
      EXPECT_EQ(msccl::write_xml(back.value()), xml);
    }
}

TEST(MscclReader, EscapesNames) {
  Result<msccl::Program> p = gen::generate_msccl("ring", OpType::AllGather, 2);
  ASSERT_TRUE(p.ok());
  p->name = "a<b>&\"c\"";
  Result<msccl::Program> back = read_msccl_program_string(msccl::write_xml(p.value()), "x.xml");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->name, "a<b>&\"c\"");
}

TEST(MscclReader, RefusesEntitiesAndExternalReferences) {
  const std::string body = R"(<algo name="&x;" proto="Simple" nchannels="1" nchunksperloop="1" ngpus="1"
  coll="allreduce" inplace="0" outofplace="1" minBytes="0" maxBytes="0"><gpu id="0" i_chunks="1" o_chunks="1"
  s_chunks="0"/></algo>)";
  for (std::string head : {std::string("<!DOCTYPE algo SYSTEM \"http://example.com/x.dtd\">"),
                           std::string("<!DOCTYPE algo [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"), std::string()}) {
    Result<msccl::Program> p = read_msccl_program_string(head + body, "x.xml");
    ASSERT_FALSE(p.ok()) << head;
    EXPECT_EQ(p.error().message.rfind("x.xml:", 0), 0u) << p.error().message;
  }
}

TEST(MscclReader, CompressedFilesAreReadAsAStream) {
  std::string plain = source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml";
  std::string gz = temp_path("ex1.xml.gz");
  ASSERT_EQ(run_shell(fmt::format("gzip -c '{}' > '{}'", plain, gz)), 0);
  EXPECT_EQ(detect_format(gz, true), InputFormat::Msccl);
  Result<std::vector<MscclCase>> c = read_msccl_file(gz, {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->size(), 1u);
}

// ---------------------------------------------------------------- execution model (§7)

TEST(MscclExecution, CallsPerStepFollowMaxBytes) {
  std::string xml = slurp(source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml");
  Result<msccl::Program> p = read_msccl_program_string(xml, "t.xml");
  ASSERT_TRUE(p.ok());
  msccl::Program q = p.value();
  EXPECT_EQ(msccl::analyze(q, {}).max_count, 1u);  // maxBytes=0: unbounded, M = 1
  EXPECT_EQ(msccl::analyze(q, {}).fifo_calls, 2u);
  q.max_bytes = 4 << 20;  // 1 MiB per chunk: 2 MiB / 1 MiB = 2 chunks per call
  EXPECT_EQ(msccl::analyze(q, {}).max_count, 2u);
  q.max_bytes = 4096;  // 1 KiB per chunk: 2048, clamped to 71
  EXPECT_EQ(msccl::analyze(q, {}).max_count, 71u);
  q.proto = msccl::Proto::LL;
  EXPECT_EQ(msccl::analyze(q, {}).max_count, 32u);
  EXPECT_EQ(msccl::analyze(q, {}).fifo_calls, 8u);
  msccl::Options o;
  o.max_count = 5;
  o.fifo_depth = 3;
  EXPECT_EQ(msccl::analyze(q, o).max_count, 5u);
  EXPECT_EQ(msccl::analyze(q, o).fifo_calls, 3u);
}

// Both ranks push three one-chunk calls before receiving: a hang with two
// calls per connection, none with three or more; and with M = 3 each step
// is one call.
TEST(MscclExecution, BoundedFifosDecideTheHang) {
  std::string xml = slurp(source_dir() + "/tests/cases/msccl/102_fifo_full_Simple.xml");
  EXPECT_TRUE(outcome(xml).count("102"));
  msccl::Options o;
  o.fifo_depth = 3;
  EXPECT_FALSE(outcome(xml, o).count("102"));
  msccl::Options m;
  m.max_count = 3;
  EXPECT_TRUE(outcome(xml, m).count("102"));  // still three steps of one chunk
}

// ---------------------------------------------------------------- mapping, reports

TEST(MscclMapping, ReportsNameMscclPositions) {
  std::string path = source_dir() + "/tests/cases/msccl/ex2_ring_allgather_4_missing_dep.xml";
  Result<std::vector<MscclCase>> c = read_msccl_file(path, {});
  ASSERT_TRUE(c.ok());
  CheckResult r = run_checks(c->front().trace, std::move(c->front().findings), CheckOptions{});
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, 302);
  ASSERT_GE(f.details.size(), 3u);
  EXPECT_NE(f.details[1].find("1/0/0 (" + path + ":"), std::string::npos) << f.details[1];
  EXPECT_NE(f.details[1].find("cpy i[0] -> o[1]"), std::string::npos) << f.details[1];
  EXPECT_NE(f.details[2].find("1/1/0 ("), std::string::npos) << f.details[2];
  EXPECT_NE(f.details[2].find("s o[1] -> rank 2"), std::string::npos) << f.details[2];
  // C = L·B = 512 bytes: chunk 1 is [0x200, 0x400).
  EXPECT_NE(f.details[0].find("rank 1 OUTPUT [0x200,0x400)"), std::string::npos) << f.details[0];
}

TEST(MscclMapping, EveryModeIsACase) {
  msccl::Options o;
  std::string path = source_dir() + "/tests/cases/msccl/302_inplace_only.xml";
  Result<std::vector<MscclCase>> c = read_msccl_file(path, o);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].mode, "outofplace");
  EXPECT_EQ((*c)[1].mode, "inplace");
  o.mode = msccl::ModeFilter::InPlace;
  c = read_msccl_file(path, o);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ((*c)[0].mode, "inplace");
  // A mode the file does not declare is an option error.
  Result<std::vector<MscclCase>> none =
      read_msccl_file(source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml", o);
  EXPECT_FALSE(none.ok());
}

// Each connection is a FIFO buffer type of the trace, of which a trace names
// at most 65 535: a file of more than 60 000 connections is refused (exit 2)
// rather than mapped wrongly. 60 GPUs of 1 001 thread blocks, each sending
// one chunk to the next GPU on a channel of its own: 60 060 connections.
TEST(MscclMapping, TooManyConnectionsAreRefused) {
  msccl::Program p;
  p.file = "many.xml";
  p.ngpus = 60;
  p.nchunksperloop = 60;
  p.nchannels = 1001;
  p.coll = msccl::Coll::AllGather;
  for (msccl::i32 g = 0; g < p.ngpus; ++g) {
    msccl::Gpu gpu;
    gpu.id = g;
    gpu.i_chunks = 1, gpu.o_chunks = 60;
    for (msccl::i32 t = 0; t < 1001; ++t) {
      msccl::Tb tb;
      tb.id = t, tb.send = (g + 1) % p.ngpus, tb.chan = t;
      msccl::Step st;
      st.type = msccl::StepType::S, st.type_name = "s", st.srcbuf = msccl::Buf::I, st.srcoff = 0, st.cnt = 1;
      tb.steps.push_back(st);
      gpu.tbs.push_back(std::move(tb));
    }
    p.gpus.push_back(std::move(gpu));
  }
  Result<std::vector<MscclCase>> c = msccl::map_program(p, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("60060 connections"), std::string::npos) << c.error().message;
}

TEST(MscclMapping, OptionsAreValidated) {
  msccl::Options o;
  o.chunk_bytes = 100;
  EXPECT_FALSE(msccl::validate(o).ok());
  o.chunk_bytes = 0;
  EXPECT_FALSE(msccl::validate(o).ok());
  o = {};
  o.iterations = 0;
  EXPECT_FALSE(msccl::validate(o).ok());
  o = {};
  o.max_count = 72;
  EXPECT_FALSE(msccl::validate(o).ok());
  EXPECT_TRUE(msccl::validate({}).ok());
}

// The chunk size and iteration count change byte ranges, never verdicts.
TEST(MscclMapping, ChunkSizeAndIterationsDoNotChangeVerdicts) {
  for (const auto& e : fs::directory_iterator(source_dir() + "/tests/cases/msccl")) {
    std::string p = e.path().string();
    if (e.path().extension() != ".xml" || p.find("/bad_") != std::string::npos) continue;
    std::string xml = slurp(p);
    std::set<std::string> base = outcome(xml);
    for (auto [b, l] : {std::pair<u64, u32>{16, 1}, {1024, 3}, {64, 5}}) {
      msccl::Options o;
      o.chunk_bytes = b;
      o.iterations = l;
      // More iterations can turn messages left over (103) into a hang: the
      // leftovers fill the FIFO in a later iteration (102, and stages 4-5
      // skipped).
      std::set<std::string> got = outcome(xml, o), want = base;
      if (l > 2 && want.count("103"))
        for (const char* c : {"102", "902"}) got.erase(c), want.erase(c);
      if (l > 2) got.erase("103"), want.erase("103");
      EXPECT_EQ(got, want) << p << " B=" << b << " L=" << l;
    }
  }
}

// ---------------------------------------------------------------- stats, convert (CLI)

TEST(MscclCli, StatsCountStepsByType) {
  RunResult r = run_collcheck("stats " + source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("msccl    : 28 steps: cpy 4 r 12 s 12 (outofplace; chunk 512 bytes = 2 iterations of 256)"),
            std::string::npos)
      << r.out;
}

// DOT draws each thread block as a lane named after its peers and each send
// -> receive pair as a solid message arrow; dependencies and the kernel's
// start and end stay dashed RECORD -> WAIT arrows.
TEST(MscclCli, DotDrawsThreadBlocksAsLanesAndMessagesAsArrows) {
  RunResult r = run_collcheck("dot " + source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml");
  ASSERT_EQ(r.status, 0) << r.err;
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = r.out.find(what); at != std::string::npos; at = r.out.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_NE(r.out.find("label=\"tb 1 \u2192" "1 \u2190" "3\";"), std::string::npos) << r.out;  // rank 0
  EXPECT_NE(r.out.find("label=\"tb 1 \u2192" "0 \u2190" "2\";"), std::string::npos);            // rank 3
  EXPECT_EQ(count("label=\"tb 0\";"), 4u);
  EXPECT_EQ(count("label=\"stream "), 0u);
  // 3 sends per rank on 4 ranks; one dependency per rank, and thread block
  // 0 starts and ends thread block 1 of each rank.
  EXPECT_EQ(count("tooltip=\"message\""), 12u);
  EXPECT_EQ(count("style=dashed, color=\"#1565c0\""), 4u * 3);
}

// Converting a golden case and checking the trace gives the same codes and
// named warnings, case by case.
TEST(MscclCli, ConvertedTracesGiveTheSameFindings) {
  int checked = 0;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(source_dir() + "/tests/cases/msccl"))
    if (e.path().extension() == ".xml" && e.path().string().find("/bad_") == std::string::npos)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!sampled(i)) continue;  // the sanitizer run: every fourth file
    const fs::path& path = files[i];
    std::string p = path.string();
    std::string stem = path.stem().string();
    std::string out = temp_path("conv-" + stem + ".jsonl");
    RunResult c = run_collcheck(fmt::format("convert '{}' -o '{}'", p, out));
    ASSERT_EQ(c.status, 0) << p << c.err;
    std::string xml_json = temp_path("conv-" + stem + ".xml.json");
    RunResult a = run_collcheck(fmt::format("check -q -j1 --json '{}' '{}'", xml_json, p));
    // One file per mode when the file declares two.
    std::vector<std::string> traces;
    for (const auto& f : fs::directory_iterator(fs::path(out).parent_path()))
      if (f.path().filename().string().rfind("conv-" + stem + ".", 0) == 0 && f.path().extension() == ".jsonl")
        traces.push_back(f.path().string());
    std::sort(traces.begin(), traces.end());
    ASSERT_FALSE(traces.empty()) << p;
    std::string trace_json = temp_path("conv-" + stem + ".trace.json");
    std::string args;
    for (const std::string& t : traces) args += " '" + t + "'";
    RunResult b = run_collcheck(fmt::format("check -q -j1 --json '{}'{}", trace_json, args));
    EXPECT_EQ(a.status, b.status) << p << "\n" << a.out << "\n" << b.out;
    auto codes = [](const std::string& json) {
      std::multiset<std::string> out;
      std::string s = slurp(json);
      for (std::size_t at = s.find("\"counts\""); at != std::string::npos; at = s.find("\"counts\"", at + 1)) {
        std::size_t end = s.find(']', at);
        out.insert(s.substr(at, end - at));
      }
      return out;
    };
    EXPECT_EQ(codes(xml_json), codes(trace_json)) << p;
    for (const std::string& t : traces) fs::remove(t);
    ++checked;
  }
  EXPECT_GT(checked, quick_tests() ? 5 : 20);
}

TEST(MscclCli, GenWritesFilesThatPass) {
  std::string out = temp_path("gen-ring-ar-8.xml");
  RunResult g = run_collcheck(fmt::format("gen ring --format msccl --op-type AllReduce --ranks 8 -o '{}'", out));
  ASSERT_EQ(g.status, 0) << g.err;
  RunResult c = run_collcheck(fmt::format("check '{}'", out));
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("#inplace: PASS"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("#outofplace: PASS"), std::string::npos) << c.out;
  RunResult l = run_collcheck("gen --format msccl --list");
  EXPECT_EQ(l.status, 0);
  EXPECT_NE(l.out.find("all-pairs"), std::string::npos);
  EXPECT_EQ(run_collcheck("gen star --format msccl --ranks 4").status, 2);
  EXPECT_EQ(run_collcheck("gen ring --format msccl --op-type Broadcast --ranks 4").status, 2);
}

TEST(MscclCli, MutateWritesMscclMutantsCheckedFromTheirFiles) {
  std::string in = source_dir() + "/tests/cases/msccl/ex1_ring_allgather_4.xml";
  std::string dir = temp_path("msccl-mutants");
  fs::remove_all(dir);
  RunResult m = run_collcheck(fmt::format("mutate '{}' --kind drop-dep --count 0 -o '{}'", in, dir));
  ASSERT_EQ(m.status, 0) << m.err;
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ASSERT_EQ(e.path().extension(), ".xml");
    ++files;
    // The label in the mutant's name is what checking the file gives.
    std::string text = slurp(e.path().string());
    RunResult c = run_collcheck(fmt::format("check -q '{}'", e.path().string()));
    bool labelled_fail = text.find("outcome: FAIL") != std::string::npos;
    EXPECT_EQ(c.status, labelled_fail ? 1 : 0) << e.path() << c.out;
  }
  EXPECT_EQ(files, 4);  // one dependency per rank
  RunResult l = run_collcheck("mutate --list");
  EXPECT_NE(l.out.find("swap-sends"), std::string::npos);
  EXPECT_EQ(run_collcheck(fmt::format("mutate '{}' --kind drop-wait -o '{}'", in, dir)).status, 2);
}

}  // namespace
}  // namespace cc::test
