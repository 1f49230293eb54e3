// Hostile sizes: numbers in a file are never trusted before the data backs
// them. Each case must end in a clear error or a normal check, in bounded
// memory (the sanitizer build also runs these).
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "test_util.h"

namespace cc::test {
namespace {

TEST(Hostile, HugeRankCountsAreRefusedOrCheap) {
  EXPECT_NE(reader_error(header(R"({"type":"AllReduce","ranks":4294967296,"dataType":"INT8","count":1})")).find(
                "is more than collcheck supports"),
            std::string::npos);
  // The largest accepted count with a single task costs nothing per rank.
  std::string t = header(R"({"type":"AllReduce","ranks":1048576,"dataType":"INT8","count":1})") +
                  R"({"rank":1048575,"stream":0,"type":"TRANS_MEM","src":{"rank":1048575,"type":"INPUT","offset":0,"len":1},"dst":{"rank":1048575,"type":"OUTPUT","offset":0,"len":1}})" "\n";
  Trace tr = parse(t);
  EXPECT_EQ(tr.op.ranks, 1048576u);
  EXPECT_EQ(tr.buffer_size(12345, kOutput), 1u);
}

TEST(Hostile, MatrixRowsMustExistBeforeAnythingIsAllocated) {
  // 2^20 ranks claim a 2^40-entry AllToAllV matrix with three rows: refused
  // at once, never reserved.
  EXPECT_NE(reader_error(header(R"({"type":"AllToAllV","ranks":1048576,"dataType":"INT8","sendCounts":[[1],[2],[3]]})"))
                .find("\"sendCounts\" must have 1048576 rows, has 3"),
            std::string::npos);
  // 2^12 empty rows for 2^12 ranks: the first short row is the error.
  std::string rows;
  for (int i = 0; i < 4096; ++i) rows += i ? ",[]" : "[]";
  EXPECT_NE(reader_error(header(fmt::format(R"({{"type":"AllToAllV","ranks":4096,"dataType":"INT8","sendCounts":[{}]}})", rows)))
                .find("\"sendCounts\" must have 4096 entries"),
            std::string::npos);
  EXPECT_NE(reader_error(header(R"({"type":"AllGatherV","ranks":1000000,"dataType":"INT8","counts":[1]})")).find(
                "\"counts\" must have 1000000 entries"),
            std::string::npos);
}

TEST(Hostile, HugeIdsAndOffsetsAreFine) {
  std::string h = header(R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":4})");
  // Stream 2^31 and 2^32-1, notify 2^32-1: ids, not sizes.
  std::string t = h + R"({"rank":0,"stream":2147483648,"type":"WAIT","notifyId":4294967295})" "\n" +
                  R"({"rank":0,"stream":4294967295,"type":"RECORD","notifyId":4294967295})" "\n";
  CheckOptions upto_mem;
  upto_mem.stages = kStageGraph | kStageSingle | kStageSync | kStageMem;
  std::vector<u16> codes = codes_of(t, upto_mem);
  // Two slave streams of one task each (203 twice); the pair matches.
  EXPECT_EQ(codes, (std::vector<u16>{203, 203, 902}));
  // An offset near 2^64 is a 201 (past the end), not an allocation.
  std::string o = h + R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":18446744073709551000,"len":4},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":4}})" "\n";
  std::vector<u16> oc = codes_of(o);
  EXPECT_TRUE(std::find(oc.begin(), oc.end(), 201) != oc.end());
}

TEST(Hostile, GiantBufferSizesCostNothing) {
  std::string h = header(R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":4})",
                         R"("buffers":{"CCL":18446744073709551615})");
  std::string t = h + R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":0,"len":4},"dst":{"rank":0,"type":"CCL","offset":18446744073709551000,"len":4}})" "\n";
  Trace tr = parse(t);
  // 2^64-1 bytes is a real size (kept as kWhole: "undeclared" is that number).
  EXPECT_EQ(tr.buffer_size(0, tr.buffers.intern("CCL")), BufferSizes::kWhole);
  std::vector<u16> codes = codes_of(tr);  // stages 2-5 over a 2^64-byte buffer: interval maps, no arrays
  EXPECT_EQ(std::count(codes.begin(), codes.end(), u16{201}), 0) << "the slice lies in the buffer";
}

}  // namespace
}  // namespace cc::test
