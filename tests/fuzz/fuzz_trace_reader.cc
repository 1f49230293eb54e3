// libFuzzer target: the JSON Lines trace reader, and every stage on what it
// accepts. Any crash, hang, sanitizer report or leak is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "pipeline/stages.h"
#include "io/jsonl/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  cc::Result<cc::ReadTrace> r = cc::read_jsonl_string(text, "fuzz.jsonl");
  if (!r.ok()) return 0;
  // Keep each input fast: the stages are near linear, but a fuzzer-made
  // header may declare a million ranks.
  if (r.value().trace.tasks.size() > 4000 || r.value().trace.op.ranks > 4096) return 0;
  cc::CheckOptions opt;
  opt.all_pairs = size % 2 == 0;
  cc::run_checks(r.value().trace, std::move(r.value().findings), opt);
  return 0;
}
