// `collcheck convert` and the ST-log writer (cli.md, stlog.md): checking a
// converted trace gives the same findings as checking the input; stlog ->
// jsonl -> stlog keeps every task line; jsonl -> stlog -> jsonl keeps every
// task of generated schedules and their mutants, and their findings.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "pipeline/stages.h"
#include "model/builder.h"
#include "mutate/mutants.h"
#include "gen/registry.h"
#include "gen_cases.h"
#include "hcclvm_fixture.h"
#include "export/jsonl.h"
#include "text/json.h"
#include "io/stlog/reader.h"
#include "io/stlog/syntax.h"
#include "export/stlog.h"
#include "mutant_check.h"
#include "stlog_test_util.h"
#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;
using namespace st;

std::string stlog_dir() { return source_dir() + "/tests/cases/stlog"; }

// A finding as it must survive conversion: everything but source lines.
std::string normalized(const Trace& t, const Finding& f) {
  static const std::regex file_line(R"( \([^()]*:[0-9]+\))");
  std::string s = fmt::format("{} {} {} {} | {}", f.code, int(f.severity), name(f.stage), f.tag,
                              std::regex_replace(f.message, file_line, ""));
  for (const std::string& d : f.details) s += " | " + std::regex_replace(d, file_line, "");
  for (u32 id : f.tasks) s += fmt::format(" @{}/{}/{}", t.tasks[id].rank, t.tasks[id].stream, t.task_index(id));
  return s;
}

std::vector<std::string> findings_of(const Trace& t, std::vector<Finding> pre) {
  CheckResult r = run_checks(t, std::move(pre), CheckOptions{});
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(normalized(t, f));
  return out;
}

// Codes and task positions only: what survives a round trip through the
// ST format, whose notify ids are renumbered.
std::vector<std::string> outcome_of(const Trace& t, std::vector<Finding> pre) {
  CheckOptions all;
  all.max_errors = 1000000;  // which findings a cap keeps may follow notify ids
  CheckResult r = run_checks(t, std::move(pre), all);
  std::vector<std::string> out;
  for (const Finding& f : r.findings) {
    std::string s = std::to_string(f.code);
    for (u32 id : f.tasks) s += fmt::format(" @{}/{}/{}", t.tasks[id].rank, t.tasks[id].stream, t.task_index(id));
    out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<StLogCase> read_log(const std::string& path, const std::string& op = "") {
  auto r = read_stlog_file(path, StLogOptions{op, ""});
  EXPECT_TRUE(r.ok()) << path << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : std::vector<StLogCase>{};
}

// Every golden ST case, with the parameters its golden expectation gives.
std::vector<std::pair<std::string, StLogCase>> golden_st_cases() {
  std::vector<std::pair<std::string, StLogCase>> out;
  std::string op_ag = R"({"type":"AllGather","ranks":2,"dataType":"FP32","count":64})";
  for (auto [file, op] : std::vector<std::pair<std::string, std::string>>{
           {"suite.log", ""}, {"with_op.log", op_ag}, {"op_file.log", stlog_dir() + "/op_file.params.json"},
           {"bare_dump.log", ""}, {"hccl.log", ""}})
    for (StLogCase& c : read_log(stlog_dir() + "/" + file, op)) out.emplace_back(file + "#" + c.name, std::move(c));
  return out;
}

// ---------------------------------------------------------------- convert to jsonl

TEST(Convert, CheckingTheConvertedTraceGivesTheSameFindings) {
  auto cases = golden_st_cases();
  ASSERT_GE(cases.size(), 20u);
  for (auto& [name, c] : cases) {
    std::string text = to_jsonl(c.read.trace, c.read.findings);
    auto back = read_jsonl_string(text, "converted.jsonl");
    ASSERT_TRUE(back.ok()) << name << ": " << back.error().message << "\n" << text;
    EXPECT_EQ(findings_of(back.value().trace, back.value().findings), findings_of(c.read.trace, c.read.findings))
        << name;
  }
}

// HCCL VM databases: every fuzz seed the HCCL VM tests build (windows, op
// groups, refused operators, inferred notify peers with their task notes).
TEST(Convert, DatabaseOperatorsGiveTheSameFindings) {
  u32 checked = 0, with_notes = 0, unchecked = 0, with_findings = 0;
  for (const auto& [seed_name, bytes] : vm::fuzz_seeds()) {
    vm::Fixture f = vm::parse_fixture(reinterpret_cast<const u8*>(bytes.data()), bytes.size());
    auto cases = vm::import_fixture(f, "convert_" + seed_name);
    if (!cases) continue;  // a seed of a broken database
    for (LoadedCase& c : cases.value()) {
      // CCU missions have no trace-format form before the CCU work defines it.
      if (!c.read.trace.ccu.sqes.empty()) continue;
      std::string text = to_jsonl(c.read.trace, c.read.findings);
      auto back = read_jsonl_string(text, "converted.jsonl");
      ASSERT_TRUE(back.ok()) << c.name << ": " << back.error().message << "\n" << text;
      EXPECT_EQ(back.value().trace.unchecked, c.read.trace.unchecked) << c.name;
      EXPECT_EQ(findings_of(back.value().trace, back.value().findings), findings_of(c.read.trace, c.read.findings))
          << c.name;
      ++checked;
      with_notes += !c.read.trace.task_notes.empty();
      unchecked += c.read.trace.unchecked;
      with_findings += !c.read.findings.empty();
    }
  }
  std::printf("%u database operators: %u with task notes, %u unchecked, %u with importer findings\n", checked,
              with_notes, unchecked, with_findings);
  EXPECT_GE(checked, 5u);
  EXPECT_GE(unchecked, 1u);
  EXPECT_GE(with_findings, 1u);
}

// A RECORD whose WAIT the database lacks: the importer's note on its task
// ("its counterpart is probably missing") reaches the findings of the
// converted trace too.
TEST(Convert, DatabaseTaskNotesSurvive) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = 2;
  op.count = 4;
  TraceBuilder b(op);
  b.declare("CCL", 16);
  b.copy(0, 0, b.slice(0, "INPUT", 0, 4), b.slice(0, "OUTPUT", 0, 4));
  b.record(0, 0, 1, 9);
  b.copy(1, 0, b.slice(1, "INPUT", 0, 4), b.slice(1, "OUTPUT", 4, 4));
  std::string err;
  vm::Fixture f = vm::from_trace(b.finish(), err);
  ASSERT_EQ(err, "");
  auto cases = vm::import_fixture(f, "convert_notes");
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  ASSERT_EQ(cases.value().size(), 1u);
  LoadedCase& c = cases.value()[0];
  ASSERT_FALSE(c.read.trace.task_notes.empty());
  auto back = read_jsonl_string(to_jsonl(c.read.trace, c.read.findings), "converted.jsonl");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back.value().trace.task_notes, c.read.trace.task_notes);
  std::vector<std::string> want = findings_of(c.read.trace, c.read.findings);
  EXPECT_EQ(findings_of(back.value().trace, back.value().findings), want);
  bool noted = false;
  for (const std::string& w : want) noted |= w.find("Note : notify id 1 is used only by rank 0") != std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(want) << ::testing::PrintToString(c.read.trace.task_notes);
}

TEST(Convert, TheCommandWritesOneFilePerCaseAndKeepsFindings) {
  fs::path dir = temp_path("convert_cmd");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string log = stlog_dir() + "/suite.log";
  RunResult r = run_collcheck(fmt::format("convert {} -o {}/suite.jsonl", log, dir.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("#StDemo.race_302 -> " + dir.string() + "/suite.StDemo.race_302.jsonl"), std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::exists(dir / "suite.StDemo.two_checks_1.jsonl")) << "'#' becomes '_' in file names";
  EXPECT_TRUE(fs::exists(dir / "suite.AllGatherSuite_StParam.ring_0.jsonl"));
  // The reference checker's error lines are kept as comments.
  EXPECT_NE(slurp((dir / "suite.StDemo.race_302.jsonl").string()).find("# reference "), std::string::npos);
  // Same verdicts and codes, case by case, from the command line.
  std::string orig_json = (dir / "orig.json").string(), conv_json = (dir / "conv.json").string();
  RunResult a = run_collcheck(fmt::format("check -q -j1 --json {} {}", orig_json, log));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::string args;
  for (const std::string& f : files) args += " " + f;
  RunResult b = run_collcheck(fmt::format("check -q -j1 --json {}{}", conv_json, args));
  EXPECT_EQ(a.status, b.status);
  simdjson::dom::parser p1, p2;
  simdjson::dom::element ja, jb;
  ASSERT_EQ(p1.load(orig_json).get(ja), simdjson::SUCCESS);
  ASSERT_EQ(p2.load(conv_json).get(jb), simdjson::SUCCESS);
  auto outcomes = [](simdjson::dom::element doc, bool by_case) {
    std::map<std::string, std::string> m;
    for (simdjson::dom::element in : doc["inputs"].get_array()) {
      std::string file{std::string_view(in["file"])};
      std::string key = by_case ? file.substr(file.find('#') + 1) : file;
      if (!by_case) {
        key = key.substr(key.rfind("/suite.") + 7);
        key = key.substr(0, key.size() - 6);
      }
      std::string v{std::string_view(in["verdict"])};
      for (simdjson::dom::element f : in["counts"].get_array()) v += fmt::format(" {}x{}", int64_t(f["code"]), int64_t(f["count"]));
      for (char& ch : key)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.') ch = '_';
      m[key] = v;
    }
    return m;
  };
  EXPECT_EQ(outcomes(ja, true), outcomes(jb, false));
  // -o - with several cases is refused; with one case it is standard output.
  EXPECT_EQ(run_collcheck(fmt::format("convert {} -o -", log)).status, 2);
  RunResult one = run_collcheck(fmt::format("convert {} --case StDemo.allgather_pass -o -", log));
  EXPECT_EQ(one.status, 0);
  EXPECT_EQ(one.out.rfind("# collcheck convert of ", 0), 0u) << one.out;
  EXPECT_EQ(run_collcheck(fmt::format("convert {} --case NoSuchCase -o {}/x.jsonl", log, dir.string())).status, 2);
  EXPECT_EQ(run_collcheck(fmt::format("convert {} --to dot -o {}/x", log, dir.string())).status, 2);
  fs::remove_all(dir);
}

TEST(Convert, WithOpParametersTheSemanticStageRunsOnTheConvertedTrace) {
  fs::path dir = temp_path("convert_op");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string log = stlog_dir() + "/with_op.log";
  std::string op = R"('{"type":"AllGather","ranks":2,"dataType":"FP32","count":64}')";
  ASSERT_EQ(run_collcheck(fmt::format("convert {} --op {} -o {}/t.jsonl", log, op, dir.string())).status, 0);
  std::string text = slurp((dir / "t.jsonl").string());
  EXPECT_NE(text.find(R"("op":{"type":"AllGather","ranks":2,"dataType":"FP32","count":64})"), std::string::npos);
  RunResult c = run_collcheck(fmt::format("check -v {}/t.jsonl", dir.string()));
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("semantic:"), std::string::npos) << c.out;
  fs::remove_all(dir);
}

// ---------------------------------------------------------------- stlog -> jsonl -> stlog

// The dump blocks of a log, in order: each the lines from its "rank id is 0"
// to its last task line.
std::vector<std::vector<std::string>> dump_blocks(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::stringstream ss(text);
  std::string line;
  bool in = false;
  while (std::getline(ss, line)) {
    StLineClass c = classify_st_line(line).cls;
    bool dump_line = c == StLineClass::RankHeader || c == StLineClass::QueueHeader || c == StLineClass::TaskLine ||
                     line == kStRankSeparator || line == kStQueueSeparator;
    if (c == StLineClass::RankHeader && line == "rank id is 0") {
      out.emplace_back();
      in = true;
    } else if (!dump_line) {
      in = false;
    }
    if (in && line != kStRankSeparator && line != kStQueueSeparator) out.back().push_back(line);
  }
  return out;
}

// A task line whose kind collcheck does not model comes back with its kind
// name only.
bool same_task_line(const std::string& written, const std::string& original) {
  if (written == original) return true;
  StTask a, b;
  if (!parse_st_task(original, b) || !parse_st_task(written, a)) return false;
  bool opaque = b.kind == StKind::Unknown || b.kind == StKind::Unsupported || b.kind == StKind::AivTaskStub;
  return opaque && a.kind_name == b.kind_name && a.rank == b.rank && a.queue == b.queue && a.index == b.index;
}

TEST(StLogWriter, StLogToJsonlToStLogKeepsEveryTaskLine) {
  for (const char* file : {"suite.log", "with_op.log", "op_file.log", "bare_dump.log", "hccl.log"}) {
    std::string path = stlog_dir() + "/" + file;
    std::vector<std::vector<std::string>> original = dump_blocks(slurp(path));
    std::vector<StLogCase> cases = read_log(path);
    ASSERT_EQ(cases.size(), original.size()) << file;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      auto j = read_jsonl_string(to_jsonl(cases[i].read.trace, cases[i].read.findings), "c.jsonl");
      ASSERT_TRUE(j.ok()) << j.error().message;
      auto st = write_stlog(j.value().trace, "");
      ASSERT_TRUE(st.ok()) << st.error().message;
      std::vector<std::vector<std::string>> written = dump_blocks(st.value().log);
      ASSERT_EQ(written.size(), 1u);
      ASSERT_EQ(written[0].size(), original[i].size()) << cases[i].name << "\n" << st.value().log;
      for (std::size_t k = 0; k < written[0].size(); ++k)
        EXPECT_TRUE(same_task_line(written[0][k], original[i][k]))
            << cases[i].name << "\n  written : " << written[0][k] << "\n  original: " << original[i][k];
      // The test name comes back, "#N" of a multi-dump test dropped.
      std::string test = cases[i].test;
      EXPECT_EQ(st.value().log.rfind("[ RUN      ] " + test + "\n", 0), 0u) << st.value().log.substr(0, 80);
    }
  }
}

TEST(StLogWriter, SidecarCarriesTheParameters) {
  auto cases = read_log(stlog_dir() + "/suite.log");
  for (const StLogCase& c : cases) {
    if (c.name != "StDemo.allreduce_batch_reduce_3rank" && c.name != "StDemo.no_parameters") continue;
    auto st = write_stlog(c.read.trace, "");
    ASSERT_TRUE(st.ok());
    if (c.name == "StDemo.no_parameters") {
      EXPECT_EQ(st.value().sidecar, "") << "no operator: no sidecar";
      continue;
    }
    EXPECT_EQ(st.value().sidecar,
              "{\"test\":\"StDemo.allreduce_batch_reduce_3rank\",\"dump\":0,\"op\":{\"type\":\"AllReduce\",\"ranks\":3,"
              "\"dataType\":\"FP32\",\"count\":64,\"reduceOp\":\"SUM\"},\"buffers\":{\"SCRATCH\":512}}\n");
  }
}

// ---------------------------------------------------------------- jsonl -> stlog -> jsonl

// Compares two traces task for task, with notify ids equal up to one
// bijection per (local, cross-rank) use, and the normalisations the ST
// format imposes on what it cannot say (DESIGN.md, "ST-log output").
void expect_same_tasks(const Trace& a, const Trace& b, const std::string& where) {
  ASSERT_EQ(a.op.ranks, b.op.ranks) << where;
  ASSERT_EQ(a.tasks.size(), b.tasks.size()) << where;
  ASSERT_EQ(a.streams.size(), b.streams.size()) << where;
  std::map<std::pair<bool, u32>, u32> ids, back;  // (local use, id) -> id
  auto buf = [](const Trace& t, BufId id) {
    std::string n = t.buffers.name(id);
    return n == "CCL" ? std::string("INPUT_CCL") : n;  // the writer's rename (a trace has no INPUT_CCL then)
  };
  for (u32 i = 0; i < a.tasks.size(); ++i) {
    const Task& x = a.tasks[i];
    const Task& y = b.tasks[i];
    std::string at = fmt::format("{} task {}/{}/{}", where, x.rank, x.stream, a.task_index(i));
    ASSERT_EQ(x.type, y.type) << at;
    EXPECT_EQ(x.rank, y.rank) << at;
    EXPECT_EQ(x.stream, y.stream) << at;
    EXPECT_EQ(a.task_index(i), b.task_index(i)) << at;
    if (is_sync_task(x.type)) {
      EXPECT_EQ(x.peer(), y.peer()) << at;
      bool local = x.peer() == x.rank;
      auto [it, added] = ids.emplace(std::pair{local, x.notify()}, y.notify());
      EXPECT_EQ(it->second, y.notify()) << at << ": one notify id became two";
      auto [jt, added2] = back.emplace(std::pair{local, y.notify()}, x.notify());
      EXPECT_EQ(jt->second, x.notify()) << at << ": two notify ids became one";
      continue;
    }
    if (!is_data_task(x.type)) continue;
    Link lx = x.link == Link::NONE ? Link::LOCAL : x.link, ly = y.link == Link::NONE ? Link::LOCAL : y.link;
    EXPECT_EQ(lx, ly) << at;
    if (is_reduce_task(x.type)) {
      EXPECT_EQ(x.data_type, y.data_type) << at;
      EXPECT_EQ(x.reduce_op, y.reduce_op) << at;
    }
    ASSERT_EQ(x.group_count(), y.group_count()) << at;
    for (u32 g = 0; g < x.group_count(); ++g) {
      const Group& gx = a.group(x, g);
      const Group& gy = b.group(y, g);
      ASSERT_EQ(gx.src_count, gy.src_count) << at;
      auto same = [&](const Slice& p, const Slice& q) {
        EXPECT_EQ(p.rank, q.rank) << at;
        EXPECT_EQ(buf(a, p.buf), buf(b, q.buf)) << at;
        EXPECT_EQ(p.offset, q.offset) << at;
        EXPECT_EQ(p.len, q.len) << at;
      };
      same(a.slices[gx.dst], b.slices[gy.dst]);
      for (u32 s = 0; s < gx.src_count; ++s) same(a.slices[gx.first_src + s], b.slices[gy.first_src + s]);
    }
  }
  EXPECT_TRUE(b.op.known) << where;
  EXPECT_EQ(jsonl_op(a.op), jsonl_op(b.op)) << where;
}

// Through the ST format and back, with the sidecar as the parameters.
Result<ReadTrace> through_stlog(const Trace& t) {
  auto st = write_stlog(t, "");
  if (!st) return st.error();
  auto r = read_stlog_string(st.value().log, "w.log", StLogOptions{st.value().sidecar, ""});
  if (!r) return r.error();
  if (r.value().size() != 1) return Error{"not one case"};
  return std::move(r.value()[0].read);
}

bool has_batch(const Trace& t) {
  return std::any_of(t.tasks.begin(), t.tasks.end(), [](const Task& k) {
    return k.type == TaskType::BATCH_TRANS_MEM || k.type == TaskType::BATCH_REDUCE;
  });
}

TEST(StLogWriter, GeneratedSchedulesRoundTripTaskForTaskWithTheirFindings) {
  u32 schedules = 0;
  for (const std::string& pair : registry_pairs()) {
    std::vector<GenCase> cases = gen_cases(pair, false);
    // A spread of shapes and variants per algorithm and operator.
    for (std::size_t i = 0; i < cases.size(); i += std::max<std::size_t>(1, cases.size() / 4)) {
      const GenCase& c = cases[i];
      Result<Trace> t = gen::generate(c.algo, c.p, true);
      ASSERT_TRUE(t.ok()) << c.label();
      if (t->tasks.size() > 20000 || has_batch(*t)) continue;
      auto back = through_stlog(*t);
      ASSERT_TRUE(back.ok()) << c.label() << ": " << back.error().message;
      expect_same_tasks(*t, back->trace, c.label());
      std::vector<std::string> got = outcome_of(back->trace, back->findings);
      // The inferred bounds of undeclared buffers are the only extra findings.
      got.erase(std::remove(got.begin(), got.end(), "902"), got.end());
      std::vector<std::string> want = outcome_of(*t, {});
      want.erase(std::remove(want.begin(), want.end(), "902"), want.end());
      EXPECT_EQ(got, want) << c.label();
      ++schedules;
    }
  }
  EXPECT_GE(schedules, 40u);
}

TEST(StLogWriter, MutantsRoundTripWithTheirFindings) {
  u32 mutants = 0;
  std::vector<GenCase> schedules = mutation_schedules(false);
  for (std::size_t s = 0; s < schedules.size(); s += std::max<std::size_t>(1, schedules.size() / 6)) {
    const GenCase& c = schedules[s];
    Result<Trace> t = gen::generate(c.algo, c.p, true);
    ASSERT_TRUE(t.ok());
    for (const mutate::FaultInfo& f : mutate::fault_kinds()) {
      auto ms = mutate::make_mutants(*t, f.kind, 7, 1);
      if (!ms) continue;  // no site of this kind
      for (mutate::Mutant& m : ms.value()) {
        if (has_batch(m.trace)) continue;
        std::string where = c.label() + " | " + m.what;
        auto back = through_stlog(m.trace);
        ASSERT_TRUE(back.ok()) << where << ": " << back.error().message;
        expect_same_tasks(m.trace, back->trace, where);
        std::vector<std::string> got = outcome_of(back->trace, back->findings);
        got.erase(std::remove(got.begin(), got.end(), "902"), got.end());
        std::vector<std::string> want = outcome_of(m.trace, {});
        want.erase(std::remove(want.begin(), want.end(), "902"), want.end());
        EXPECT_EQ(got, want) << where;
        ++mutants;
      }
    }
  }
  EXPECT_GE(mutants, 50u);
}

// ---------------------------------------------------------------- what the format cannot say

TEST(StLogWriter, BatchesAndMultiRankReducesBecomeConsecutiveTasks) {
  Op op;
  op.type = OpType::AllReduce;
  op.ranks = 2;
  op.data_type = DataType::INT32;
  op.count = 4;
  TraceBuilder b(op, "hand");
  b.declare("CCL", 64);
  b.batch_copy(0, 0, {{b.slice(0, "INPUT", 0, 8), b.slice(0, "CCL", 0, 8)}, {b.slice(0, "INPUT", 8, 8), b.slice(1, "OUTPUT", 8, 8)}});
  b.reduce(0, 0, {b.slice(1, "INPUT", 0, 16), b.slice(0, "CCL", 0, 16)}, b.slice(0, "OUTPUT", 0, 16));
  b.reduce(0, 0, {b.slice(0, "INPUT", 0, 16), b.slice(0, "CCL", 0, 16)}, b.slice(0, "OUTPUT", 0, 16));
  b.copy(1, 0, b.slice(0, "INPUT", 0, 4), b.slice(0, "OUTPUT", 0, 4), Link::SDMA);  // neither slice on rank 1
  Trace t = b.finish();
  auto st = write_stlog(t, "Hand.made");
  ASSERT_TRUE(st.ok()) << st.error().message;
  const std::string& log = st.value().log;
  EXPECT_NE(log.find("[rankId:0, queueId:0, index:0] LocalCopy[srcSlice=DataSlice[BufferType::INPUT, offset=0, "
                     "size=8], dstSlice=DataSlice[BufferType::INPUT_CCL, offset=0, size=8]]"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("[rankId:0, queueId:0, index:1] Write[remoteRank=1, link=link prototyp=LinkProtoStub::"
                     "INVALID_A, localSlice=DataSlice[BufferType::INPUT, offset=8, size=8], remoteSlice="),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("[rankId:0, queueId:0, index:2] ReadReduce[remoteRank=1"), std::string::npos) << log;
  EXPECT_NE(log.find("[rankId:0, queueId:0, index:3] LocalReduce[dataType=2, reduceOp=0"), std::string::npos);
  EXPECT_NE(log.find("[rankId:0, queueId:0, index:4] LocalBatchReduce[dataType=2, reduceOp=0, srcSlice=[DataSlice["
                     "BufferType::INPUT, offset=0, size=16],DataSlice[BufferType::INPUT_CCL, offset=0, size=16]]"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("[rankId:1, queueId:0, index:0] CollcheckCopy[srcRank=0"), std::string::npos);
  std::string notes;
  for (const std::string& n : st.value().notes) notes += n + "\n";
  EXPECT_NE(notes.find("buffer type CCL written as BufferType::INPUT_CCL"), std::string::npos) << notes;
  EXPECT_NE(notes.find("BATCH_TRANS_MEM written as one copy per pair"), std::string::npos) << notes;
  EXPECT_NE(notes.find("one reduce per source"), std::string::npos) << notes;
  EXPECT_NE(notes.find("CollcheckCopy"), std::string::npos) << notes;
  EXPECT_NE(st.value().sidecar.find("\"buffers\":{\"INPUT_CCL\":64}"), std::string::npos) << st.value().sidecar;
  // Everything but the third-party copy reads back; that one is a 101.
  auto r = read_stlog_string(log, "w.log", StLogOptions{st.value().sidecar, ""});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value()[0].read.findings.size(), 1u);
  EXPECT_EQ(r.value()[0].read.findings[0].code, 101);
}

Op allgather(u32 ranks) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = ranks;
  op.count = 1;
  return op;
}

TEST(StLogWriter, NotifyIdsWithoutStNamesGetKeysOfTheirOwn) {
  TraceBuilder b(allgather(2));
  // Two cross-rank ids, one local id equal to a cross-rank one, one id past
  // the %d range: all stay distinct and paired as before.
  b.record(0, 0, 1, 7);
  b.record(0, 0, 1, 4000000000u);
  b.record(0, 0, 0, 7);
  b.wait(0, 0, 0, 7);
  b.wait(1, 0, 0, 7);
  b.wait(1, 0, 0, 4000000000u);
  Trace t = b.finish();
  auto st = write_stlog(t, "");
  ASSERT_TRUE(st.ok());
  EXPECT_NE(st.value().log.find("Post[remoteRank=1, link=link prototyp=LinkProtoStub::INVALID_A, topicId=7, "
                                "originated tag=INVALID]"),
            std::string::npos)
      << st.value().log;
  EXPECT_NE(st.value().log.find("LocalPostTo[topicId=7]"), std::string::npos);
  EXPECT_NE(st.value().log.find("topicId=0, originated tag=INVALID]"), std::string::npos) << "2^32-ish id: a free topic";
  auto back = through_stlog(t);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_tasks(t, back->trace, "hand-made");
  EXPECT_EQ(outcome_of(back->trace, back->findings), outcome_of(t, {}));
}

TEST(StLogWriter, SparseStreamIdsKeepTheirQueueNumbers) {
  TraceBuilder b(allgather(1));
  b.record(0, 0, 0, 1);
  b.wait(0, 3, 0, 1);
  b.record(0, 3, 0, 2);
  b.wait(0, 0, 0, 2);
  Trace t = b.finish();
  auto st = write_stlog(t, "");
  ASSERT_TRUE(st.ok());
  EXPECT_NE(st.value().log.find("stream/queue id is 1\n" + std::string(kStQueueSeparator) + "\nstream/queue id is 2\n"),
            std::string::npos)
      << "empty queues print their header";
  EXPECT_NE(st.value().log.find("[rankId:0, queueId:3, index:0] LocalWaitFrom[topicId=1]"), std::string::npos);
  auto back = through_stlog(t);
  ASSERT_TRUE(back.ok());
  expect_same_tasks(t, back->trace, "sparse");
}

// A test name that is not UTF-8 (found by fuzzing): JSON cannot hold it, so
// the writer names the test after the file and the trace format's name
// holds U+FFFD; both read back.
TEST(StLogWriter, TestNamesThatAreNotUtf8) {
  std::string text = gtest("Demo.\x83" "bad", dump(allgather2()));
  auto cases = read_stlog_string(text, "odd.log", StLogOptions{kAllGather2Op, ""});
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  const Trace& t = cases.value()[0].read.trace;
  auto st = write_stlog(t, "");
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.value().log.rfind("[ RUN      ] collcheck.odd\n", 0), 0u) << st.value().log.substr(0, 60);
  auto back = read_stlog_string(st.value().log, "w.log", StLogOptions{st.value().sidecar, ""});
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back.value()[0].read.trace.op.known);
  auto j = read_jsonl_string(to_jsonl(t), "odd.jsonl");
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ(j.value().trace.name, "Demo.\xef\xbf\xbd" "bad");
  EXPECT_EQ(json_quote("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  std::string replaced = "\"";
  for (int k = 0; k < 11; ++k) replaced += "\xef\xbf\xbd";  // U+FFFD per invalid byte
  EXPECT_EQ(json_quote("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82"), replaced + "\"")
      << "overlong, surrogate, above U+10FFFF, truncated";
}

}  // namespace
}  // namespace cc::test
