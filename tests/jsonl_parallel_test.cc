// The parallel trace reader (io/jsonl/parallel_reader.h) against the
// sequential one: the same trace, findings and error messages for every
// golden trace, generated schedules with lines of every kind, and
// corrupted lines anywhere (part boundaries included); CCU and AIV files
// and inputs it must leave alone go to the sequential reader.
#include "io/jsonl/parallel_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "export/jsonl.h"
#include "gen/registry.h"
#include "io/jsonl/reader.h"
#include "io/line_reader.h"
#include "gen_cases.h"
#include "test_util.h"

namespace cc::test::jsonl_parallel {

namespace fs = std::filesystem;

// Everything a reader leaves, as text: the written trace, then what the
// writer does not show (file order, line numbers, tags, interned names,
// group and slice indices), then the findings.
std::string dump(const Result<ReadTrace>& r) {
  if (!r) return "error: " + r.error().message;
  const Trace& t = r.value().trace;
  std::string out = to_jsonl(t);
  for (const std::string& b : t.buffers.names) out += fmt::format("buf {}\n", b);
  for (const std::string& g : t.tags) out += fmt::format("tag {}\n", g);
  for (const Task& k : t.tasks)
    out += fmt::format("task {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}\n", static_cast<int>(k.type),
                       static_cast<int>(k.data_type), static_cast<int>(k.reduce_op), static_cast<int>(k.link),
                       k.flags, k.tag, k.rank, k.stream, t.task_index(k), k.first_group(), k.group_count(), k.peer(), k.notify(),
                       k.line, t.tag_of(k));
  for (const Group& g : t.groups) out += fmt::format("group {} {} {}\n", g.dst, g.first_src, g.src_count);
  for (const Slice& s : t.slices) out += fmt::format("slice {} {} {} {}\n", s.rank, s.buf, s.offset, s.len);
  for (auto [s, len] : t.recorded_lens) out += fmt::format("recorded {} {}\n", s, len);
  for (const Stream& s : t.streams) out += fmt::format("stream {} {} {} {}\n", s.rank, s.id, s.first_task, s.task_count);
  for (const Finding& f : r.value().findings) {
    out += fmt::format("finding {} {} {}\n", f.code, f.tag, f.message);
    for (const std::string& d : f.details) out += "  " + d + "\n";
    for (u32 k : f.tasks) out += fmt::format("  task {}\n", k);
  }
  return out;
}

// The parallel reader with no size threshold, or the sequential one where
// it declines (as read_jsonl_file does). `parallel` says which read.
std::string read_with(const std::string& path, unsigned threads, bool* parallel = nullptr) {
  std::optional<Result<ReadTrace>> r = read_jsonl_parallel(path, threads, 0);
  if (parallel) *parallel = r.has_value();
  return dump(r ? std::move(*r) : read_jsonl_file(path));
}

std::string sequential(const std::string& path) { return dump(read_jsonl_file(path)); }

void write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
  std::fclose(f);
}

std::string generated(const std::string& algo, OpType op, u32 ranks, u64 count) {
  gen::GenParams p;
  p.op = op;
  p.ranks = ranks;
  p.count = count;
  p.ccl_bytes = u64{1} << 16;  // small CCL buffers: many iterations, many lines
  Result<Trace> t = gen::generate(algo, p, true);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? to_jsonl(*t) : std::string();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A generated trace with lines of every kind the parts must number and
// intern alike: comments and blank lines, CRLF ends, unknown task types
// (101, their text naming the line), tags, buffer names first met late in
// the file, recorded lengths, and no newline after the last line.
std::string mixed_trace(std::mt19937& rng) {
  std::vector<std::string> lines = split_lines(generated("ring", OpType::AllReduce, 8, 1 << 16));
  std::vector<std::string> out{lines[0]};
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string l = lines[i];
    switch (rng() % 40) {
      case 0: out.push_back("# a comment"); break;
      case 1: out.push_back("   "); break;
      case 2: l += "\r"; break;
      case 3: out.push_back(fmt::format(R"({{"rank":{},"stream":7,"type":"TRANS_MEMM"}})", rng() % 8)); break;
      case 4: out.push_back(fmt::format(R"({{"rank":{},"stream":7,"type":"KIND_{}"}})", rng() % 8, rng() % 5)); break;
      case 5:
        out.push_back(fmt::format(R"({{"rank":{},"stream":7,"type":"UNKNOWN","tag":"T{}"}})", rng() % 8, rng() % 7));
        break;
      case 6:
        out.push_back(fmt::format(R"({{"rank":{},"stream":8,"type":"RECORD","notifyId":{},"tag":"R{}"}})", rng() % 8,
                                  rng() % 100, rng() % 4));
        break;
      case 7: {
        u32 r = rng() % 8;
        out.push_back(fmt::format(
            R"({{"rank":{},"stream":9,"type":"TRANS_MEM","src":{{"rank":{},"type":"SCRATCH_{}","offset":0,"len":4}},)"
            R"("dst":{{"rank":{},"type":"OUTPUT","offset":0,"len":4,"recordedLen":{}}}}})",
            r, r, rng() % 6, r, 8 + rng() % 9));
        break;
      }
      default: break;
    }
    out.push_back(l);
  }
  std::string text = join_lines(out);
  text.pop_back();
  return text;
}

TEST(JsonlParallel, GoldenTracesReadAlike) {
  int files = 0, parallel_reads = 0;
  u64 seen = 0;
  // The files in name order, so that the sanitizers' quarter
  // (COLLCHECK_QUICK_TESTS: every fourth) is the same on every machine.
  std::vector<std::string> paths;
  for (const auto& e : fs::recursive_directory_iterator(source_dir() + "/tests/cases"))
    if (e.is_regular_file() && e.path().extension() == ".jsonl") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    if (!sampled(seen++)) continue;
    std::string want = sequential(path);
    ++files;
    for (unsigned threads : {2u, 3u, 8u}) {
      bool parallel = false;
      EXPECT_EQ(read_with(path, threads, &parallel), want) << path << " with " << threads << " threads";
      parallel_reads += parallel;
    }
  }
  EXPECT_GT(files, quick_tests() ? 25 : 100);
  // Only CCU and AIV files (and bad headers) go to the sequential reader.
  EXPECT_GT(parallel_reads, files * 3 / 2);
}

TEST(JsonlParallel, GeneratedSchedulesReadAlike) {
  struct Case {
    const char* algo;
    OpType op;
    u32 ranks;
    u64 count;
  };
  std::vector<Case> cases = {{"ring", OpType::AllReduce, 8, 1 << 16},
                             {"ring", OpType::AllGather, 5, 1 << 15},
                             {"mesh", OpType::AllGather, 8, 1 << 16},
                             {"mesh", OpType::ReduceScatter, 4, 1 << 15},
                             {"pairwise", OpType::AllToAll, 16, 1 << 14}};
  std::string path = temp_path("parallel_gen.jsonl");
  for (const Case& c : cases) {
    std::string text = generated(c.algo, c.op, c.ranks, c.count);
    ASSERT_GT(text.size(), 100000u) << c.algo;
    write_file(path, text);
    std::string want = sequential(path);
    ASSERT_EQ(want.rfind("error", 0), std::string::npos) << want.substr(0, 300);
    for (unsigned threads : {2u, 3u, 8u}) {
      bool parallel = false;
      EXPECT_EQ(read_with(path, threads, &parallel), want) << c.algo << " with " << threads << " threads";
      EXPECT_TRUE(parallel) << c.algo;
    }
    // Through the public entry: above the threshold only when large.
    EXPECT_EQ(dump(read_jsonl_file(path, 3)), want);
  }
}

TEST(JsonlParallel, MixedLinesReadAlike) {
  std::string path = temp_path("parallel_mixed.jsonl");
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    write_file(path, mixed_trace(rng));
    std::string want = sequential(path);
    ASSERT_EQ(want.rfind("error", 0), std::string::npos) << want.substr(0, 300);
    ASSERT_NE(want.find("finding 101"), std::string::npos);
    ASSERT_NE(want.find("recorded "), std::string::npos);
    for (unsigned threads : {2u, 3u, 8u, 17u}) {
      bool parallel = false;
      EXPECT_EQ(read_with(path, threads, &parallel), want) << "seed " << seed << ", " << threads << " threads";
      EXPECT_TRUE(parallel);
    }
  }
}

// One line made bad in one of several ways.
std::string corrupt(const std::string& line, std::mt19937& rng) {
  std::string l = line;
  auto replace_key = [&](const std::string& key, const std::string& value) {
    std::size_t at = l.find("\"" + key + "\":");
    if (at == std::string::npos) return false;
    std::size_t from = at + key.size() + 3, to = l.find_first_of(",}", from);
    l.replace(from, to - from, value);
    return true;
  };
  switch (rng() % 10) {
    case 0: return l.substr(0, l.size() / 2);                   // cut: invalid JSON
    case 1: return replace_key("rank", "\"one\"") ? l : "[1]";  // wrong type
    case 2: return replace_key("rank", "100000") ? l : "{}";    // outside the ranks
    case 3: return replace_key("link", "\"PCIE\"") ? l : "{\"link\":\"PCIE\"," + l.substr(1);  // unknown value
    case 4: return replace_key("stream", "123456789012345678901234567890") ? l : "1";  // too long a number
    case 5: return "{\"bogus\":1," + l.substr(1);                                     // unknown key
    case 6: return replace_key("type", "17") ? l : "{";
    case 7: return R"({"format":"collcheck-trace","version":1,"op":{}})";  // a second header
    case 8: return "{\"rank\":0}";                                        // lacks fields
    default: return replace_key("offset", "-1") ? l : "nul";
  }
}

TEST(JsonlParallel, FirstBadLineInFileOrder) {
  std::string text = generated("ring", OpType::AllReduce, 8, 1 << 15);
  std::vector<std::string> lines = split_lines(text);
  ASSERT_GT(lines.size(), 1000u);
  // Lines that hold part boundaries for 2, 3 and 8 threads, and their
  // neighbours: where a part's first and last lines are.
  std::vector<std::size_t> near_cut;
  std::size_t from = lines[0].size() + 1, size = text.size();
  for (unsigned n : {2u, 3u, 8u})
    for (unsigned i = 1; i < n; ++i) {
      std::size_t cut = from + (size - from) * i / n, at = 0;
      for (std::size_t k = 0; k < lines.size(); ++k) {
        if (at + lines[k].size() + 1 > cut) {
          for (std::size_t d : {k - 1, k, k + 1})
            if (d >= 1 && d < lines.size()) near_cut.push_back(d);
          break;
        }
        at += lines[k].size() + 1;
      }
    }
  std::string path = temp_path("parallel_bad.jsonl");
  int checked = 0;
  for (unsigned seed = 1; seed <= scaled(120); ++seed) {
    std::mt19937 rng(seed);
    std::vector<std::string> bad = lines;
    // One or two bad lines: with two, a later part may fail first in time.
    int count = 1 + static_cast<int>(rng() % 2);
    for (int c = 0; c < count; ++c) {
      std::size_t k = rng() % 2 ? near_cut[rng() % near_cut.size()] : 1 + rng() % (lines.size() - 1);
      bad[k] = corrupt(bad[k], rng);
    }
    write_file(path, join_lines(bad));
    std::string want = sequential(path);
    if (want.rfind("error: ", 0) != 0) continue;  // a change the format accepts
    for (unsigned threads : {2u, 3u, 8u}) {
      bool parallel = false;
      EXPECT_EQ(read_with(path, threads, &parallel), want) << "seed " << seed << ", " << threads << " threads";
      EXPECT_TRUE(parallel) << "seed " << seed;
      ++checked;
    }
  }
  EXPECT_GT(checked, quick_tests() ? 75 : 300);
}

TEST(JsonlParallel, CcuAndAivFilesFallBackToSequential) {
  int seen = 0;
  for (const char* dir : {"/tests/cases/ccu", "/tests/cases/aiv"}) {
    for (const auto& e : fs::directory_iterator(source_dir() + dir)) {
      std::string path = e.path().string();
      if (e.path().extension() != ".jsonl") continue;
      std::string body = slurp(path);
      bool stateful = body.find("\"ccu\":\"") != std::string::npos || body.find("\"aiv\":") != std::string::npos ||
                      body.find("CCU_GRAPH") != std::string::npos || body.find("AIV_GRAPH") != std::string::npos;
      // In a version-1 file CCU_GRAPH and AIV_GRAPH are unknown types.
      if (!stateful || body.find("\"version\":1") != std::string::npos || sequential(path).rfind("error", 0) == 0)
        continue;
      ++seen;
      EXPECT_FALSE(read_jsonl_parallel(path, 3, 0).has_value()) << path;
      EXPECT_EQ(read_with(path, 3), sequential(path)) << path;
    }
  }
  EXPECT_GT(seen, 10);

  // A CCU data line after many task lines, in the last part only.
  std::string text = generated("ring", OpType::AllGather, 4, 1 << 14);
  std::vector<std::string> lines = split_lines(text);
  std::string v2 = lines[0];
  v2.replace(v2.find("\"version\":1"), 11, "\"version\":2");
  lines[0] = v2;
  lines.push_back(R"({"ccu":"dieBase","rank":0,"die":0,"base":4096})");
  std::string path = temp_path("parallel_ccu.jsonl");
  write_file(path, join_lines(lines));
  EXPECT_FALSE(read_jsonl_parallel(path, 3, 0).has_value());
  EXPECT_EQ(read_with(path, 3), sequential(path));
}

TEST(JsonlParallel, DeclinesWhatItMustNotSplit) {
  std::string text = generated("ring", OpType::AllReduce, 4, 1 << 14);
  std::string path = temp_path("parallel_plain.jsonl");
  write_file(path, text);
  EXPECT_TRUE(read_jsonl_parallel(path, 2, 0).has_value());
  EXPECT_FALSE(read_jsonl_parallel(path, 1, 0).has_value());                  // one thread
  EXPECT_FALSE(read_jsonl_parallel(path, 4, text.size() + 1).has_value());    // under the threshold
  EXPECT_FALSE(read_jsonl_parallel(path, 4).has_value());                     // under the default threshold
  EXPECT_FALSE(read_jsonl_parallel("-", 4, 0).has_value());                   // standard input
  EXPECT_FALSE(read_jsonl_parallel(fs::temp_directory_path().string(), 4, 0).has_value());  // not a file
  std::string gz = find_program("gzip");
  if (gz.empty()) GTEST_SKIP() << "gzip not found";
  ASSERT_EQ(run_shell(fmt::format("{} -kf {}", gz, path)), 0);
  EXPECT_FALSE(read_jsonl_parallel(path + ".gz", 4, 0).has_value());  // compressed
  EXPECT_EQ(dump(read_jsonl_file(path + ".gz", 4)), sequential(path + ".gz"));
}

TEST(JsonlParallel, LineReaderStartsAtAnOffset) {
  std::string path = temp_path("parallel_offset.txt");
  write_file(path, "ab\ncd\r\nef");
  LineReader r;
  ASSERT_EQ(message_of(r.open_at(path, 3)), "");
  std::string_view line;
  ASSERT_TRUE(r.next(line));
  EXPECT_EQ(line, "cd");
  EXPECT_EQ(r.position(), 7u);
  ASSERT_TRUE(r.next(line));
  EXPECT_EQ(line, "ef");
  EXPECT_EQ(r.position(), 9u);
  EXPECT_FALSE(r.next(line));
  std::string gz = find_program("gzip");
  if (gz.empty()) GTEST_SKIP() << "gzip not found";
  ASSERT_EQ(run_shell(fmt::format("{} -kf {}", gz, path)), 0);
  LineReader z;
  EXPECT_NE(message_of(z.open_at(path + ".gz", 3)), "");
}

}  // namespace cc::test::jsonl_parallel
