// HCCL's real schedules through the HCCL VM importer: each task dump of
// tests/cases/hccl-st, its buffers folded into the database's three (every
// buffer but INPUT and OUTPUT becomes a window of CCL), written as the rows
// HCCL VM records (hcclvm_fixture.h) and checked from that database by the
// binary, gives the verdict and error codes of the dump itself. The
// exceptions are the dumps whose notify keys the ST dump cannot tell apart
// (STLOG-W-NOTIFY-AMBIGUOUS): a database records one id per key, so the
// uses the dump merges become one notify there, posted again before its
// wait — the 602 the warning says an exact record would show.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "pipeline/stages.h"
#include "hcclvm_fixture.h"
#include "io/stlog/reader.h"
#include "gen_cases.h"
#include "test_util.h"

namespace cc::test::vm::hcclvm_real_test {
namespace {

namespace fs = std::filesystem;

// The trace with every buffer but INPUT and OUTPUT moved into one CCL, each
// at its own base (the sum of the sizes before it, on every rank).
Trace fold_into_ccl(Trace t) {
  BufId ccl = t.buffers.intern("CCL");
  std::map<BufId, u64> base;
  u64 total = 0;
  for (BufId b = 0; b < t.buffers.names.size(); ++b) {
    if (b == kInput || b == kOutput || b == ccl) continue;
    u64 size = 0;
    for (u32 r = 0; r < t.op.ranks; ++r) {
      u64 s = t.buffer_size(r, b);
      if (s != BufferSizes::kUndeclared) size = std::max(size, s);
    }
    base[b] = total;
    total += size;
  }
  for (Slice& s : t.slices) {
    auto it = base.find(s.buf);
    if (it == base.end()) continue;
    s.offset += it->second;
    s.buf = ccl;
  }
  // INPUT and OUTPUT keep their sizes (an ST dump's framework sizes: a
  // Scatter's non-root ranks have an INPUT).
  t.sizes.declared.resize(t.buffers.names.size(), BufferSizes::kUndeclared);
  for (const auto& [b, at] : base) t.sizes.declared[b] = BufferSizes::kUndeclared;
  t.sizes.declared[ccl] = total;
  std::erase_if(t.sizes.per_rank, [&](const auto& e) { return base.count(static_cast<BufId>(e.first & 0xffff)); });
  t.recorded_lens.clear();
  return t;
}

struct Outcome {
  std::string verdict;
  std::set<int> errors;
  std::set<std::string> warnings;
};

Outcome check_file(const std::string& path) {
  std::string json = temp_path("real_db_report.json");
  fs::remove(json);
  RunResult r = run_collcheck(fmt::format("check -q -j1 --json '{}' '{}'", json, path));
  Outcome o;
  EXPECT_TRUE(r.status == 0 || r.status == 1) << path << ": " << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(json).get(doc) != simdjson::SUCCESS) return o;
  for (simdjson::dom::element in : doc["inputs"].get_array()) {
    o.verdict = std::string(std::string_view(in["verdict"]));
    for (simdjson::dom::element c : in["counts"].get_array()) {
      if (std::string_view(c["severity"]) == "error") o.errors.insert(int(int64_t(c["code"])));
      else if (int64_t(c["code"]) == 0) o.warnings.insert(std::string(std::string_view(c["name"])));
    }
  }
  return o;
}

TEST(HcclvmRealSchedules, EveryDumpAsADatabaseGivesItsVerdict) {
  fs::path dir = fs::path(source_dir()) / "tests" / "cases" / "hccl-st";
  std::vector<std::string> dumps;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().ends_with(".log.gz")) dumps.push_back(e.path().string());
  std::sort(dumps.begin(), dumps.end());
  u32 compared = 0, ambiguous = 0;
  std::vector<std::string> not_expressible;
  for (std::size_t i = 0; i < dumps.size(); ++i) {
    if (!sampled(i)) continue;  // the sanitizer run: every fourth dump
    const std::string& dump = dumps[i];
    Outcome st = check_file(dump);
    auto cases = read_stlog_file(dump, StLogOptions{});
    ASSERT_TRUE(cases.ok()) << cases.error().message;
    ASSERT_EQ(cases->size(), 1u);
    std::string err;
    Fixture f = from_trace(fold_into_ccl(cases->front().read.trace), err);
    if (!err.empty()) {
      not_expressible.push_back(fs::path(dump).filename().string() + ": " + err);
      continue;
    }
    std::string db = temp_path(fs::path(dump).stem().stem().string() + ".db");
    fs::remove(db);
    ASSERT_EQ(write_fixture(f, db), "");
    Outcome from_db = check_file(db);
    if (st.warnings.count("STLOG-W-NOTIFY-AMBIGUOUS")) {
      EXPECT_EQ(from_db.verdict, "FAIL") << dump;
      EXPECT_EQ(from_db.errors, std::set<int>{602}) << dump;
      ++ambiguous;
    } else {
      EXPECT_EQ(from_db.verdict, st.verdict) << dump;
      EXPECT_EQ(from_db.errors, st.errors) << dump;
    }
    // The ST-only warnings are the dump's; the importer's own are HCCLVM-W-*.
    for (const std::string& w : from_db.warnings)
      EXPECT_TRUE(w.rfind("HCCLVM-W-", 0) == 0 || w == "ATOMIC-REDUCE-ORDER") << dump << ": " << w;
    ++compared;
    if (::testing::Test::HasFailure()) std::printf("kept %s\n", db.c_str()); else fs::remove(db);
  }
  for (const std::string& n : not_expressible) std::printf("not expressible as a database: %s\n", n.c_str());
  std::printf("%u dumps checked as databases (%u with ambiguous notify keys)\n", compared, ambiguous);
  if (quick_tests()) {
    EXPECT_GE(compared, 6u);
  } else {
    EXPECT_GE(compared, 28u);
    EXPECT_EQ(ambiguous, 3u);
  }
}

}  // namespace
}  // namespace cc::test::vm::hcclvm_real_test
