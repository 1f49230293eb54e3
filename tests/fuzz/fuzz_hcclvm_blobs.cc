// libFuzzer target: the HCCL VM database reader. The BLOB decoders get the
// raw bytes; then the bytes are read as a small database (the byte form of
// tests/hcclvm_fixture.h), written into an in-memory SQLite database through
// the fixture builder, imported and checked. Any crash, hang, sanitizer
// report, leak or allocation beyond the RSS limit is a bug. Seeds:
// tests/fuzz/seeds/fuzz_hcclvm_blobs/ (written by the fixture builder,
// checked by HcclvmFuzzSeeds.UpToDate).
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>

#include "pipeline/stages.h"
#include "hcclvm_fixture.h"
#include "io/hcclvm/blobs.h"
#include "io/hcclvm/db.h"

namespace {

void decoders(const uint8_t* data, size_t size) {
  using namespace cc::hcclvm;
  Bytes b(data, size);
  cc::u32 ranks = size ? data[0] : 0;
  decode_op_detail(b);
  decode_task_meta(b);
  decode_v_counts(b, ranks);
  decode_v_counts(b, cc::kMaxRanks);
  decode_matrix(b, ranks);
  decode_matrix(b, 0xffffffffu);
  decode_batch_items(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  decoders(data, size);
  cc::test::vm::Fixture f = cc::test::vm::parse_fixture(data, size);
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  if (cc::test::vm::write_fixture(f, db).empty()) {
    cc::InputOptions opt;
    opt.keep_stream_ids = size % 3 == 1;
    opt.recorded_peers = size % 5 == 2;
    auto cases = cc::read_hcclvm_handle(db, "fuzz.db", opt);
    if (cases.ok()) {
      for (cc::LoadedCase& c : cases.value()) {
        const cc::Trace& t = c.read.trace;
        if (t.tasks.size() > 4000 || t.op.ranks > 4096) continue;
        cc::run_checks(t, std::move(c.read.findings), cc::CheckOptions{});
      }
    }
  }
  sqlite3_close(db);
  return 0;
}
