#include "io/line_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "test_util.h"

namespace cc::test {
namespace {

std::vector<std::string> read_all(const std::string& path) {
  LineReader r;
  EXPECT_EQ(r.open(path), "");
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
  std::vector<std::string> got = read_all(path);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "line " << i + 1;
}

TEST(LineReader, EmptyFileAndMemory) {
  std::string path = temp_path("empty.txt");
  std::fclose(std::fopen(path.c_str(), "wb"));
  EXPECT_TRUE(read_all(path).empty());
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
