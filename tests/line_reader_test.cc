#include "io/line_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"

namespace cc::test {
namespace {

std::vector<std::string> read_lines(const std::string& path) {
  LineReader r;
  EXPECT_EQ(message_of(r.open(path)), "");
  std::vector<std::string> lines;
  std::string_view line;
  while (r.next(line)) {
    // simdjson reads up to kLinePadding bytes past the end: they must exist.
    volatile char past = line.data()[line.size() + kLinePadding - 1];
    (void)past;
    lines.emplace_back(line);
    EXPECT_EQ(r.line_number(), lines.size());
  }
  EXPECT_EQ(r.error(), "");
  return lines;
}

TEST(LineReader, SplitsLinesAcrossChunksAndKeepsPadding) {
  std::string path = temp_path("lines.txt");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::vector<std::string> want;
  // Lines of many lengths, one longer than a whole chunk (4 MiB), CRLF ends,
  // and a last line without a newline.
  for (int i = 0; i < 20000; ++i) want.push_back(std::string(i % 700, static_cast<char>('a' + i % 26)));
  want.push_back(std::string(5 << 20, 'x'));
  want.push_back("crlf");
  want.push_back("");
  want.push_back("last");
  for (std::size_t i = 0; i < want.size(); ++i) {
    std::fputs(want[i].c_str(), f);
    if (want[i] == "crlf") std::fputs("\r", f);
    if (i + 1 < want.size()) std::fputs("\n", f);
  }
  std::fclose(f);
  std::vector<std::string> got = read_lines(path);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "line " << i + 1;
}

TEST(LineReader, EmptyFileAndMemory) {
  std::string path = temp_path("empty.txt");
  std::fclose(std::fopen(path.c_str(), "wb"));
  EXPECT_TRUE(read_lines(path).empty());
  LineReader m;
  m.attach_memory("a\nb");
  std::string_view l;
  ASSERT_TRUE(m.next(l));
  EXPECT_EQ(l, "a");
  ASSERT_TRUE(m.next(l));
  EXPECT_EQ(l, "b");
  EXPECT_FALSE(m.next(l));
}

}  // namespace
}  // namespace cc::test

#include <zlib.h>
#include <zstd.h>

#include <fstream>

namespace cc::test {
namespace {

std::string sample_text() {
  std::string text;
  for (int i = 0; i < 30000; ++i) text += "line " + std::to_string(i) + std::string(i % 97, '.') + "\n";
  return text;
}

std::string write_gzip(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  gzFile g = gzopen(path.c_str(), "wb");
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  gzclose(g);
  return path;
}

std::string write_zstd(const std::string& name, const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3));
  std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << out;
  return path;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

TEST(LineReader, ReadsGzipAndZstdByContent) {
  std::string text = sample_text();
  // Names that say nothing: the content decides.
  EXPECT_EQ(read_lines(write_gzip("plain-name-1.txt", text)), split(text));
  EXPECT_EQ(read_lines(write_zstd("plain-name-2.txt", text)), split(text));
}

TEST(LineReader, TruncatedCompressedInputIsAnError) {
  std::string text = sample_text();
  for (std::string path : {write_gzip("t.gz", text), write_zstd("t.zst", text)}) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::string cut = temp_path("cut-" + std::to_string(bytes.size()));
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    LineReader r;
    ASSERT_EQ(message_of(r.open(cut)), "");
    std::string_view line;
    std::size_t n = 0;
    while (r.next(line)) ++n;
    EXPECT_NE(r.error(), "") << path;
    EXPECT_LT(n, split(text).size());
  }
}

TEST(LineReader, CompressedTraceIsCheckedLikeThePlainOne) {
  std::ifstream in(source_dir() + "/examples/allgather_ccl_race.jsonl", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::string dir = temp_path("compressed-dir");
  std::filesystem::create_directories(dir);
  std::string gz = write_gzip("compressed-dir/a.jsonl.gz", text);
  std::string zs = write_zstd("compressed-dir/b.jsonl.zst", text);
  RunResult plain = run_collcheck("check -q " + source_dir() + "/examples/allgather_ccl_race.jsonl");
  RunResult both = run_collcheck("check -q -j1 " + dir);
  EXPECT_EQ(both.status, plain.status);
  // "collcheck: FILE: VERDICT (...) ranks=.. tasks=.." without the time.
  auto verdict = [](const std::string& line) {
    std::size_t from = line.find(".jsonl") , to = line.find(" in ", from);
    return line.substr(line.find(": ", from), to - line.find(": ", from));
  };
  std::string want = verdict(plain.out);
  ASSERT_FALSE(want.empty());
  std::size_t second = both.out.find("collcheck: ", 1);
  EXPECT_EQ(verdict(both.out.substr(0, second)), want) << both.out;
  EXPECT_EQ(verdict(both.out.substr(second)), want) << both.out;
  EXPECT_NE(both.out.find("a.jsonl.gz: "), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("b.jsonl.zst: "), std::string::npos) << both.out;
}

}  // namespace
}  // namespace cc::test
