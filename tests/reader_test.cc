#include <gtest/gtest.h>

#include "test_util.h"

namespace cc::test {
namespace {

const std::string kAg2 = header(R"({"type":"AllGather","ranks":2,"dataType":"INT32","count":64})");

TEST(Reader, ReadsExampleHeaderAndTask) {
  Trace t = parse(kAg2 +
                  R"({"rank":1,"stream":0,"type":"TRANS_MEM","src":{"rank":1,"type":"INPUT","offset":0,"len":256},"dst":{"rank":1,"type":"OUTPUT","offset":256,"len":256}})"
                  "\n");
  EXPECT_EQ(t.op.type, OpType::AllGather);
  EXPECT_EQ(t.op.ranks, 2u);
  ASSERT_EQ(t.tasks.size(), 1u);
  EXPECT_EQ(t.buffer_size(0, kOutput), 512u);
  EXPECT_EQ(t.buffer_size(0, kInput), 256u);
}

TEST(Reader, ExactU64) {
  std::string ok = kAg2 + R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":18446744073709551615,"len":0},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":0}})" "\n";
  Trace t = parse(ok);
  ASSERT_EQ(t.slices.size(), 2u);
  EXPECT_EQ(t.slices[0].offset, 18446744073709551615ull);
  std::string bad = kAg2 + R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":18446744073709551616,"len":0},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":0}})" "\n";
  EXPECT_NE(reader_error(bad), "");
}

TEST(Reader, Errors) {
  EXPECT_EQ(reader_error(""), "t.jsonl:1: no trace header (the file holds no JSON line)");
  EXPECT_EQ(reader_error(R"({"rank":0,"stream":0,"type":"WAIT","notifyId":1})" "\n"),
            "t.jsonl:1: a task line comes before the trace header");
  std::string v3 = kAg2;
  v3.replace(v3.find("\"version\":1"), 11, "\"version\":3");
  EXPECT_EQ(reader_error(v3),
            "t.jsonl:1: trace format version 3 is newer than this collcheck reads (version 2)");
  EXPECT_EQ(reader_error(header(R"({"type":"Foo","ranks":2,"dataType":"INT32","count":64})")),
            "t.jsonl:1: unknown operator \"Foo\"");
  EXPECT_EQ(reader_error(kAg2 + "# c\n" + R"({"rank":2,"stream":0,"type":"WAIT","notifyId":1})" "\n"),
            "t.jsonl:3: task rank 2 is outside the operator's ranks 0..1");
  EXPECT_EQ(reader_error(kAg2 + R"({"rank":0,"stream":0,"type":"WAIT"})" "\n"),
            "t.jsonl:2: WAIT lacks \"notifyId\"");
  EXPECT_EQ(reader_error(kAg2 + R"({"rank":0,"stream":0,"type":"WAIT","notifyId":"1"})" "\n"),
            "t.jsonl:2: \"notifyId\" must be an unsigned integer (at most 2^64-1)");
  EXPECT_NE(reader_error(kAg2 + R"({"rank":0,"stream":0,"type":"WA)"), "");
}

}  // namespace
}  // namespace cc::test
