// End to end: the collcheck binary on HCCL VM databases written by the
// fixture builder — exit status, case names, codes in the JSON report,
// error lines, --case, --format and the database options.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>

#include "hcclvm_fixture.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test::vm {
namespace {

struct Entry {
  std::string file, verdict;
  std::set<int> codes;
  std::vector<std::string> names;  // finding names, in order
};

struct Report {
  RunResult r;
  std::vector<Entry> entries;
};

std::string write(const Fixture& f, const std::string& name) {
  std::string p = temp_path(name + ".db");
  std::string err = write_fixture(f, p);
  EXPECT_EQ(err, "");
  return p;
}

Report check(const std::string& args) {
  Report out;
  std::string json = temp_path("cli_report.json");
  std::filesystem::remove(json);
  out.r = run_collcheck(fmt::format("check -q -j1 --json {} {}", json, args));
  if (out.r.status == 2) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.load(json).get(doc), simdjson::SUCCESS) << out.r.out << out.r.err;
  if (!doc.is_object()) return out;
  for (simdjson::dom::element in : doc["inputs"].get_array()) {
    Entry e;
    e.file = std::string(std::string_view(in["file"]));
    e.verdict = std::string(std::string_view(in["verdict"]));
    for (simdjson::dom::element c : in["counts"].get_array()) e.codes.insert(int(int64_t(c["code"])));
    for (simdjson::dom::element f : in["findings"].get_array()) e.names.emplace_back(std::string_view(f["name"]));
    out.entries.push_back(e);
  }
  return out;
}

TEST(HcclvmCli, Spec13PassesAsFileHashW0Op0) {
  std::string db = write(allgather2(), "cli_spec13");
  Report r = check(fmt::format("'{}'", db));
  EXPECT_EQ(r.r.status, 0) << r.r.out << r.r.err;
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].file, db + "#w0-op0");
  EXPECT_EQ(r.entries[0].verdict, "PASS");
  EXPECT_EQ(r.entries[0].codes, std::set<int>{});
  // The human summary names the case too.
  RunResult h = run_collcheck(fmt::format("check '{}'", db));
  EXPECT_NE(h.out.find("collcheck: " + db + "#w0-op0: PASS (0 errors; 0 warnings) ranks=2 tasks=8"),
            std::string::npos)
      << h.out;
}

TEST(HcclvmCli, FaultyDatabasesFail) {
  Fixture bad = allgather2();
  bad.ops[0].tasks[1].meta = memcpy_meta(0, 0, 0, 0x10000000, 1, 0x30000000, 256);
  Report a = check(fmt::format("'{}'", write(bad, "cli_badaddr")));
  EXPECT_EQ(a.r.status, 1);
  ASSERT_EQ(a.entries.size(), 1u);
  EXPECT_EQ(a.entries[0].codes, (std::set<int>{110, 902}));
  Fixture race = allgather2();
  race.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 0, 0x10010000, 256);
  Report b = check(fmt::format("'{}'", write(race, "cli_race")));
  EXPECT_EQ(b.r.status, 1);
  ASSERT_EQ(b.entries.size(), 1u);
  EXPECT_TRUE(b.entries[0].codes.count(302));
  Fixture other = allgather2();
  other.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 1, 0x10010100, 256);
  Report c = check(fmt::format("'{}'", write(other, "cli_other_rank")));
  EXPECT_EQ(c.r.status, 1);
  EXPECT_EQ(c.entries.at(0).codes, std::set<int>{112});
}

// A database's tasks have no lines: SARIF locates a finding at the database
// file and names its tasks as logical locations; the log is still valid SARIF.
TEST(HcclvmCli, SarifOfADatabase) {
  Fixture race = allgather2();
  race.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 0, 0x10010000, 256);
  std::string db = write(race, "cli_sarif_race");
  std::string sarif = temp_path("cli_sarif_race.sarif");
  RunResult r = run_collcheck(fmt::format("check -q --sarif {} '{}'", sarif, db));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(sarif).get(doc), simdjson::SUCCESS);
  bool seen = false;
  for (simdjson::dom::element res : doc["runs"].at(0)["results"].get_array()) {
    if (std::string_view(res["ruleId"]) != "302") continue;
    seen = true;
    simdjson::dom::element loc = res["locations"].at(0);
    EXPECT_EQ(std::string_view(loc["physicalLocation"]["artifactLocation"]["uri"]), db);
    EXPECT_TRUE(loc["physicalLocation"]["region"].error()) << "no line to point at";
    EXPECT_FALSE(std::string_view(loc["logicalLocations"].at(0)["name"]).empty());
    EXPECT_EQ(res["relatedLocations"].get_array().size(), 1u);
    EXPECT_NE(std::string_view(res["message"]["text"]).find("#w0-op0: "), std::string_view::npos);
  }
  EXPECT_TRUE(seen);
  std::string python = find_program("python3");
  if (python.empty()) return;
  int rc = run_shell(fmt::format("'{}' '{}/tests/schemas/validate.py' '{}/tests/schemas/sarif-schema-2.1.0.json' '{}'",
                                 python, source_dir(), source_dir(), sarif));
  if (rc == 77) GTEST_SKIP() << "python3-jsonschema is not installed";
  EXPECT_EQ(rc, 0) << "not valid SARIF";
}

TEST(HcclvmCli, CorruptDatabaseIsExit2NamingTableRowAndColumn) {
  Fixture f = allgather2();
  f.ops[0].tasks[1].meta.resize(154);
  std::string db = write(f, "cli_corrupt");
  RunResult r = run_collcheck(fmt::format("check '{}'", db));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, fmt::format("collcheck: error: {}: table opTask_P_5100 row 2 column opTaskMeta: blob is 154 "
                               "bytes; a packed HcclTaskMetaData needs 155\n",
                               db));
  // Exit 2 wins over another input's FAIL.
  Fixture bad = allgather2();
  bad.ops[0].tasks[1].meta = memcpy_meta(0, 0, 0, 0x10000000, 1, 0x30000000, 256);
  RunResult both = run_collcheck(fmt::format("check -q '{}' '{}'", write(bad, "cli_fail"), db));
  EXPECT_EQ(both.status, 2);
}

TEST(HcclvmCli, NeverSynchronisedIsAWarning) {
  Fixture f = allgather2();
  for (OpFx& o : f.ops) o.sync_iter = 1;
  std::string db = write(f, "cli_never");
  Report r = check(fmt::format("'{}'", db));
  EXPECT_EQ(r.r.status, 0);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].file, db + "#w1-op0");
  EXPECT_EQ(r.entries[0].codes, std::set<int>{0});
  EXPECT_EQ(r.entries[0].names, std::vector<std::string>{"HCCLVM-W-NEVER-SYNCED"});
}

TEST(HcclvmCli, CasesFormatsAndDirectories) {
  Fixture f = allgather2();
  Fixture g = allgather2();
  for (OpFx& o : g.ops) o.sync_iter = 1, f.ops.push_back(o);
  for (u32 r = 0; r < 2; ++r) f.syncs.push_back({5100 + u64{r}, r, 2, 1});
  std::filesystem::path dir = temp_path("cli_dir");
  std::filesystem::create_directories(dir);
  std::string db = (dir / "hccl_vm_data.db").string();
  ASSERT_EQ(write_fixture(f, db), "");
  Report all = check(fmt::format("'{}'", dir.string()));
  EXPECT_EQ(all.r.status, 0) << all.r.err;
  ASSERT_EQ(all.entries.size(), 2u);
  EXPECT_EQ(all.entries[0].file, db + "#w0-op0");
  EXPECT_EQ(all.entries[1].file, db + "#w1-op0");
  Report one = check(fmt::format("--case 'w1-*' --format hcclvm-db '{}'", db));
  ASSERT_EQ(one.entries.size(), 1u);
  EXPECT_EQ(one.entries[0].file, db + "#w1-op0");
  // stats and dot take --case too.
  RunResult s = run_collcheck(fmt::format("stats '{}'", db));
  EXPECT_EQ(s.status, 0);
  EXPECT_NE(s.out.find("== " + db + "#w1-op0"), std::string::npos) << s.out;
  RunResult d = run_collcheck(fmt::format("dot --case w0-op0 '{}'", db));
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("digraph"), std::string::npos);
}

TEST(HcclvmCli, DatabaseOptions) {
  // Rank 1 without stream 0: renumbered unless --keep-stream-ids.
  Fixture f = allgather2();
  for (TaskFx& t : f.ops[1].tasks) t.meta[7] = 5;  // streamId 5
  std::string db = write(f, "cli_streams");
  Report r = check(fmt::format("'{}'", db));
  EXPECT_EQ(r.entries.at(0).names, std::vector<std::string>{"HCCLVM-W-NO-MAIN-STREAM"});
  // Kept, stream 5 is a slave stream that does not open with a local WAIT.
  Report k = check(fmt::format("--keep-stream-ids '{}'", db));
  EXPECT_EQ(k.entries.at(0).codes, std::set<int>{203});
  RunResult help = run_collcheck("check --help");
  EXPECT_NE(help.out.find("--recorded-peers"), std::string::npos);
}

// `collcheck convert` of a database, then `check` of the traces it wrote:
// every case keeps its verdict and codes — importer findings (110, 112,
// 405, the HCCLVM-W-* warnings), task notes and unchecked groups travel in
// the trace header (importFindings, taskNotes, unchecked).
TEST(HcclvmCli, ConvertedDatabaseGivesTheSameFindings) {
  std::vector<std::pair<std::string, Fixture>> dbs;
  dbs.emplace_back("conv_spec13", allgather2());
  Fixture f = allgather2();
  f.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 0, 0x10010000, 256);
  dbs.emplace_back("conv_race", f);
  f = allgather2();
  f.ops[1].tasks.erase(f.ops[1].tasks.begin() + 2);
  dbs.emplace_back("conv_lost", f);
  f = allgather2();
  f.ops[0].tasks.erase(f.ops[0].tasks.begin());
  dbs.emplace_back("conv_missing", f);
  f = allgather2();
  f.ops[0].tasks[1].meta = memcpy_meta(0, 0, 0, 0x10000000, 1, 0x30000000, 256);
  dbs.emplace_back("conv_110", f);
  f = allgather2();
  f.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 1, 0x10010100, 256);
  dbs.emplace_back("conv_112", f);
  f = allgather2();
  f.ops[1].detail = op_detail(2, 2, 0, 64);
  dbs.emplace_back("conv_405", f);
  f = allgather2();
  f.ops[0].tasks.push_back({4, meta_header(5, 0, 0), {}});  // AIV_GRAPH without its snapshot file: 107 (carried)
  CcuSqe q;
  q.inst_count = 4;
  f.ops[1].tasks.push_back({4, ccu_meta(1, 0, q), {}});  // CCU_GRAPH: 111 on its placeholder
  dbs.emplace_back("conv_111", f);
  f = allgather2();
  Fixture later = allgather2();
  for (OpFx o : later.ops) o.sync_iter = 1, f.ops.push_back(o);  // w1-op0: never synchronised
  dbs.emplace_back("conv_windows", f);
  u32 cases = 0;
  for (const auto& [name, fx] : dbs) {
    std::string db = write(fx, name);
    std::filesystem::path dir = temp_path(name + "_out");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    RunResult c = run_collcheck(fmt::format("convert '{}' -o '{}/t.jsonl'", db, dir.string()));
    ASSERT_EQ(c.status, 0) << name << ": " << c.err;
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    std::string args;
    for (const std::string& p : files) args += " '" + p + "'";
    Report from_db = check(fmt::format("'{}'", db)), from_traces = check(args);
    EXPECT_EQ(from_db.r.status, from_traces.r.status) << name;
    ASSERT_EQ(from_db.entries.size(), from_traces.entries.size()) << name;
    for (std::size_t i = 0; i < from_db.entries.size(); ++i, ++cases) {
      EXPECT_EQ(from_traces.entries[i].verdict, from_db.entries[i].verdict) << from_db.entries[i].file;
      EXPECT_EQ(from_traces.entries[i].codes, from_db.entries[i].codes) << from_db.entries[i].file;
      EXPECT_EQ(from_traces.entries[i].names, from_db.entries[i].names) << from_db.entries[i].file;
    }
  }
  EXPECT_EQ(cases, 10u);
}

// Inline reduces in a database (checks.md stage 4): rows of two ranks reduce
// by SDMA into the same bytes of a third, unordered, with one operator and
// data type: atomic by default (with the FP32 rounding warning), 302 with
// --strict-reduce, and 302 when the operators differ.
TEST(HcclvmCli, InlineReducesAreAtomicInDatabasesToo) {
  for (const char* other_op : {"SUM", "MAX"}) {
    std::string text = fmt::format(
        R"({{"format":"collcheck-trace","version":1,"op":{{"type":"AllGather","ranks":3,"dataType":"FP32","count":16}},"buffers":{{"CCL":64}}}}
{{"rank":0,"stream":0,"type":"RECORD","waitRank":1,"notifyId":1}}
{{"rank":0,"stream":0,"type":"RECORD","waitRank":2,"notifyId":2}}
{{"rank":1,"stream":0,"type":"WAIT","recordRank":0,"notifyId":1}}
{{"rank":1,"stream":0,"type":"REDUCE","srcs":[{{"rank":1,"type":"INPUT","offset":0,"len":64}}],"dst":{{"rank":0,"type":"CCL","offset":0,"len":64}},"reduceOp":"SUM","dataType":"FP32","link":"SDMA"}}
{{"rank":2,"stream":0,"type":"WAIT","recordRank":0,"notifyId":2}}
{{"rank":2,"stream":0,"type":"REDUCE","srcs":[{{"rank":2,"type":"INPUT","offset":0,"len":64}}],"dst":{{"rank":0,"type":"CCL","offset":0,"len":64}},"reduceOp":"{}","dataType":"FP32","link":"SDMA"}}
)",
        other_op);
    std::string err;
    Fixture f = from_trace(parse(text), err);
    ASSERT_EQ(err, "");
    std::string db = write(f, std::string("atomic_") + other_op);
    std::string stages = "--stages graph,single,sync,mem ";
    Report r = check(stages + "'" + db + "'");
    ASSERT_EQ(r.entries.size(), 1u) << r.r.out << r.r.err;
    if (std::string(other_op) == "SUM") {
      EXPECT_EQ(r.entries[0].verdict, "PASS") << r.r.out;
      EXPECT_TRUE(std::count(r.entries[0].names.begin(), r.entries[0].names.end(), "ATOMIC-REDUCE-ORDER")) << r.r.out;
      Report strict = check(stages + "--strict-reduce '" + db + "'");
      ASSERT_EQ(strict.entries.size(), 1u);
      EXPECT_EQ(strict.entries[0].verdict, "FAIL");
      EXPECT_TRUE(strict.entries[0].codes.count(302)) << strict.r.out;
    } else {
      EXPECT_EQ(r.entries[0].verdict, "FAIL") << r.r.out;
      EXPECT_TRUE(r.entries[0].codes.count(302)) << r.r.out;
    }
  }
}

}  // namespace
}  // namespace cc::test::vm
