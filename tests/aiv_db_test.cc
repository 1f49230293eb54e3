// AIV launches in HCCL VM databases, end to end through the binary: the
// AIV_GRAPH records written by the fixture builder, their snapshot files
// beside the database (aiv.md §2.2) or in --aiv-dir, and `convert` keeping
// them (the written trace gives the same findings).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gen/aiv.h"
#include "hcclvm_fixture.h"
#include "io/jsonl/reader.h"
#include "test_util.h"

namespace cc::test::vm {
namespace {

namespace fs = std::filesystem;

// The database of an AIV trace (not expanded) in a directory of its own,
// with its snapshot files beside it; returns the database's path.
std::string write_db(const Trace& t, const std::string& name) {
  std::string err;
  Fixture f = from_trace(t, err);
  EXPECT_EQ(err, "");
  EXPECT_FALSE(f.files.empty());
  std::string dir = temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = dir + "/hccl_vm_data.db";
  EXPECT_EQ(write_fixture(f, db), "");
  for (const auto& [file, text] : f.files) std::ofstream(dir + "/" + file) << text;
  return db;
}

Trace case_trace(const std::string& name) {
  Result<ReadTrace> r = read_jsonl_file(source_dir() + "/tests/cases/aiv/" + name);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r ? std::move(r->trace) : Trace{};
}

// "exit 1 103 302" style summary of a check: its exit status and the codes
// of the text report's findings.
std::string summary(const RunResult& r) {
  std::set<std::string> codes;
  const std::string key = "[ErrorCode: ";
  for (std::size_t at = r.out.find(key); at != std::string::npos; at = r.out.find(key, at + 1))
    codes.insert(r.out.substr(at + key.size(), 3));
  std::string s = fmt::format("exit {}", r.status);
  for (const std::string& c : codes) s += " " + c;
  return s;
}

TEST(AivDb, ExamplesFromADatabaseGiveTheirFindings) {
  // aiv.md §8.1-8.3 written as HCCL VM rows and snapshot files.
  struct Case {
    const char* file;
    int exit;
    std::vector<std::string> have;
  };
  for (const Case& c : {Case{"example1_pass.jsonl", 0, {"PASS"}},
                        Case{"example2_missing_wait.jsonl", 1, {"302", "103", "AIV_UB(launch 0, block 0)"}},
                        Case{"example3_recv_never.jsonl", 1, {"102", "RECV_FLAG cell 0:0x100080 has 1"}}}) {
    std::string db = write_db(case_trace(c.file), std::string("aivdb_") + c.file);
    RunResult r = run_collcheck("check " + db);
    EXPECT_EQ(r.status, c.exit) << c.file << "\n" << r.out << r.err;
    for (const std::string& h : c.have) EXPECT_NE(r.out.find(h), std::string::npos) << c.file << ": " << h << "\n" << r.out;
    if (c.exit == 1 && c.have[0] == "302") {
      // AIV nodes are named by their launch's record: table and row, snapshot file, taskId.
      EXPECT_NE(r.out.find("opTask_P_"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("hcclvm_aiv_rank0_launch0_task.json"), std::string::npos) << r.out;
    }
  }
}

TEST(AivDb, SnapshotsElsewhereNeedAivDir) {
  std::string db = write_db(case_trace("example1_pass.jsonl"), "aivdb_dir");
  std::string dir = fs::path(db).parent_path().string(), other = temp_path("aivdb_dir_snapshots");
  fs::remove_all(other);
  fs::create_directories(other);
  for (const char* f : {"hcclvm_aiv_rank0_launch0_task.json", "hcclvm_aiv_rank1_launch0_task.json"})
    fs::rename(dir + "/" + f, other + "/" + f);
  RunResult r = run_collcheck("check " + db);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[ErrorCode: 107]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hcclvm_aiv_rank0_launch0_task.json"), std::string::npos) << r.out;
  r = run_collcheck("check --aiv-dir " + other + " " + db);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // Snapshot files of other launches (other operators, other runs) are not
  // read; -v lists them. A leftover temporary file is not a snapshot.
  std::ofstream(other + "/hcclvm_aiv_rank0_launch7_task.json") << "not even JSON";
  std::ofstream(other + "/hcclvm_aiv_rank1_launch0_task.json.tmp") << "{";
  r = run_collcheck("check -v --aiv-dir " + other + " " + db);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("hcclvm_aiv_rank0_launch7_task.json"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("launch0_task.json.tmp"), std::string::npos) << r.out;
}

TEST(AivDb, BadSnapshotFileIsAFindingNotAnError) {
  std::string db = write_db(case_trace("example1_pass.jsonl"), "aivdb_bad");
  std::string dir = fs::path(db).parent_path().string();
  for (const char* text : {"", "{\"rank\":0,", "[]", "{\"rank\":0,\"launchIndex\":5,\"aivCores\":[]}",
                           "{\"rank\":0,\"launchIndex\":0,\"aivCores\":[{\"blockIdx\":\"zero\"}]}"}) {
    std::ofstream(dir + "/hcclvm_aiv_rank0_launch0_task.json") << text;
    RunResult r = run_collcheck("check " + db);
    EXPECT_EQ(r.status, 1) << text << "\n" << r.out << r.err;
    EXPECT_EQ(r.err, "") << text;
    EXPECT_NE(r.out.find("[ErrorCode: 107]"), std::string::npos) << text << "\n" << r.out;
  }
}

TEST(AivDb, ConvertKeepsSnapshotsAndFindings) {
  for (const char* file : {"example1_pass.jsonl", "example2_missing_wait.jsonl", "example3_recv_never.jsonl",
                           "602_released_early.jsonl", "302_flag_vs_copy.jsonl", "w_flag_resent.jsonl"}) {
    std::string db = write_db(case_trace(file), std::string("aivconv_") + file);
    std::string out = temp_path(std::string("aivconv_out_") + file);
    RunResult c = run_collcheck(fmt::format("convert {} -o {}", db, out));
    ASSERT_EQ(c.status, 0) << file << ": " << c.err;
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("{\"aiv\":{"), std::string::npos) << file;
    EXPECT_NE(text.find("\"type\":\"AIV_GRAPH\",\"launch\":0"), std::string::npos) << file;
    RunResult a = run_collcheck("check " + db), b = run_collcheck("check " + out);
    EXPECT_EQ(summary(a), summary(b)) << file << "\n" << a.out << "\n----\n" << b.out;
    EXPECT_NE(a.status, 2) << a.err;
  }
}

TEST(AivDb, GeneratedKernelsPassFromADatabase) {
  for (OpType op : {OpType::AllGather, OpType::AllReduce}) {
    gen::AivGenParams p;
    p.op = op;
    p.ranks = 4;
    p.blocks = 3;
    p.count = 1000;
    Result<Trace> t = gen::generate_aiv(p);
    ASSERT_TRUE(t.ok());
    std::string db = write_db(*t, fmt::format("aivdb_gen_{}", name(op)));
    RunResult r = run_collcheck("check -v " + db);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("aiv: 4 launches (4 expanded)"), std::string::npos) << r.out;
    // stats counts the AIV nodes by kind.
    r = run_collcheck("stats " + db);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("SEND_FLAG"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace cc::test::vm
