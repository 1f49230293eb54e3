// The emitter every reference schedule writes through (algorithms.md §1):
// buffer bindings (with --fold-ccl), zero-length data tasks dropped, notify
// ids of both modes of §1.4, and invariant G1 asserted.
//
// A schedule is emitted rank by rank; what matters is only that the tasks of
// one (rank, stream) are emitted in program order (TraceBuilder keeps that
// order per stream). Notify sequence numbers count per (recordRank,
// waitRank, channel, type) in emission order, which by G1 is the program
// order of the one stream that issues them.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/builder.h"
#include "model/result.h"

namespace cc::gen {

using i64 = std::int64_t;

// Notify types of algorithms.md §1.4 (their value is the low 4 bits of an id).
enum class Notify : u8 { READY = 0, FIN = 1, FIN_ACK = 2, ACK = 3, DATA = 4, M2S = 5, S2M = 6 };

// Channel of the inter-server level of a hierarchical algorithm (§1.4).
inline constexpr u32 kChInterServer = 32;
inline constexpr u32 kMaxChannel = 255;

// A buffer as a template sees it: a buffer type and the offset its window
// starts at (a level-1 AllReduce of §16 works on a window of INPUT_CCL).
struct Buf {
  BufId id = 0;
  u64 base = 0;
  Buf at(u64 off) const { return {id, base + off}; }
  bool operator==(const Buf&) const = default;
};

// A byte range relative to a Buf.
struct Part {
  u64 off = 0;
  u64 len = 0;
};

// Everything the command line says about the schedule's surroundings.
struct EmitOptions {
  bool physical_notify = false;  // --physical-notify
  bool fold_ccl = false;         // --fold-ccl
  u64 ccl_bytes = 0;             // C
};

class Emitter {
 public:
  Emitter(const Op& op, std::string name, const EmitOptions& options);

  const Op& op() const { return b_.trace().op; }
  u64 ccl_bytes() const { return opt_.ccl_bytes; }

  // The buffers of §1.3. INPUT_CCL/OUTPUT_CCL become windows of CCL with
  // --fold-ccl. Using a buffer declares it (sizes are written by finish()).
  Buf input() const { return {kInput, 0}; }
  Buf output() const { return {kOutput, 0}; }
  Buf input_ccl();
  Buf output_ccl();
  Buf ccl();      // the new-op single communication buffer (C bytes)
  Buf scratch();  // SCRATCH, sized by its furthest use

  Slice at(u32 rank, Buf b, u64 off, u64 len) const;
  Slice at(u32 rank, Buf b, Part p) const { return at(rank, b, p.off, p.len); }

  // Data tasks issued by `rank` on `stream`; a zero-length one is dropped.
  void copy(u32 rank, u32 stream, const Slice& src, const Slice& dst);
  void reduce(u32 rank, u32 stream, const Slice& src, const Slice& dst);

  // RECORD to / WAIT for `peer` of `type` on channel `ch` (§1.2 REC/WT);
  // peer == rank makes a local sync (LREC/LWT with ch = the slave index).
  void record(u32 rank, u32 stream, u32 peer, Notify type, u32 ch);
  void wait(u32 rank, u32 stream, u32 peer, Notify type, u32 ch);

  // The first error (a G1 violation, a channel out of range), if any.
  bool failed() const { return !error_.empty(); }
  void fail(std::string message);

  // Declares the buffers used, checks that every RECORD class has as many
  // WAITs, and finalizes. An error is a generator bug or an unusable option.
  Result<Trace> finish();

 private:
  struct ClassState {
    u32 records = 0, waits = 0;
    u32 record_stream = kNone, wait_stream = kNone;
  };
  u32 notify_id(u32 record_rank, u32 wait_rank, u32 stream, bool is_record, Notify type, u32 ch);
  void note_use(const Slice& s);

  TraceBuilder b_;
  EmitOptions opt_;
  BufId input_ccl_ = kNoBuf, output_ccl_ = kNoBuf, ccl_ = kNoBuf, scratch_ = kNoBuf;
  bool ccl_folded_used_ = false;
  u64 scratch_end_ = 0;
  std::unordered_map<u64, ClassState> classes_;
  std::string error_;
};

// ⟨x⟩: x mod n in 0 … n−1, for signed index arithmetic.
inline u32 md(i64 x, u32 n) {
  i64 m = x % static_cast<i64>(n);
  return static_cast<u32>(m < 0 ? m + n : m);
}

}  // namespace cc::gen
