#include "gen/emitter.h"

#include <fmt/format.h>

namespace cc::gen {

Emitter::Emitter(const Op& op, std::string name, const EmitOptions& options)
    : b_(op, std::move(name)), opt_(options) {}

void Emitter::fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

Buf Emitter::input_ccl() {
  if (opt_.fold_ccl) {
    ccl_folded_used_ = true;
    return ccl();
  }
  if (input_ccl_ == kNoBuf) input_ccl_ = b_.buf("INPUT_CCL");
  return {input_ccl_, 0};
}

Buf Emitter::output_ccl() {
  if (opt_.fold_ccl) {
    ccl_folded_used_ = true;
    return {ccl().id, opt_.ccl_bytes};
  }
  if (output_ccl_ == kNoBuf) output_ccl_ = b_.buf("OUTPUT_CCL");
  return {output_ccl_, 0};
}

Buf Emitter::ccl() {
  if (ccl_ == kNoBuf) ccl_ = b_.buf("CCL");
  return {ccl_, 0};
}

Buf Emitter::scratch() {
  if (scratch_ == kNoBuf) scratch_ = b_.buf("SCRATCH");
  return {scratch_, 0};
}

Slice Emitter::at(u32 rank, Buf b, u64 off, u64 len) const {
  Slice s;
  s.rank = rank;
  s.buf = b.id;
  s.offset = b.base + off;
  s.len = len;
  return s;
}

void Emitter::note_use(const Slice& s) {
  if (s.buf == scratch_ && s.offset + s.len > scratch_end_) scratch_end_ = s.offset + s.len;
}

void Emitter::copy(u32 rank, u32 stream, const Slice& src, const Slice& dst) {
  if (src.len == 0) return;
  note_use(src);
  note_use(dst);
  Link link = src.rank == rank && dst.rank == rank ? Link::LOCAL : Link::SDMA;
  b_.copy(rank, stream, src, dst, link);
}

void Emitter::reduce(u32 rank, u32 stream, const Slice& src, const Slice& dst) {
  if (src.len == 0) return;
  note_use(src);
  note_use(dst);
  Link link = src.rank == rank && dst.rank == rank ? Link::LOCAL : Link::SDMA;
  b_.reduce(rank, stream, {src}, dst, link);
}

u32 Emitter::notify_id(u32 record_rank, u32 wait_rank, u32 stream, bool is_record, Notify type,
                       u32 ch) {
  if (ch > kMaxChannel) {
    fail(fmt::format("notify channel {} is out of range 0…{} (too many ranks or streams for "
                     "this algorithm)",
                     ch, kMaxChannel));
    return 0;
  }
  u32 low = ch << 4 | static_cast<u32>(type);
  u64 key = (u64{record_rank} << 32 | wait_rank) * 4096 + low;  // ranks < 2^20
  ClassState& c = classes_[key];
  u32& owner = is_record ? c.record_stream : c.wait_stream;
  if (owner == kNone) owner = stream;
  if (owner != stream)
    fail(fmt::format("invariant G1 broken: {}s of ({}→{}, ch {}, type {}) on streams {} and {} of "
                     "rank {}",
                     is_record ? "RECORD" : "WAIT", record_rank, wait_rank, ch,
                     static_cast<u32>(type), owner, stream, is_record ? record_rank : wait_rank));
  u32 seq = is_record ? c.records++ : c.waits++;
  if (opt_.physical_notify) return low;
  return (seq & 0xfffffu) << 12 | low;
}

void Emitter::record(u32 rank, u32 stream, u32 peer, Notify type, u32 ch) {
  b_.record(rank, stream, peer, notify_id(rank, peer, stream, true, type, ch));
}

void Emitter::wait(u32 rank, u32 stream, u32 peer, Notify type, u32 ch) {
  b_.wait(rank, stream, peer, notify_id(peer, rank, stream, false, type, ch));
}

Result<Trace> Emitter::finish() {
  for (const auto& [key, c] : classes_) {
    if (c.records == c.waits) continue;
    u64 ranks = key / 4096;
    fail(fmt::format("generator bug: {} RECORDs but {} WAITs of ({}→{}, ch {}, type {})", c.records,
                     c.waits, ranks >> 32, ranks & 0xffffffffu, (key % 4096) >> 4, key % 16));
  }
  if (failed()) return Error{error_};
  u64 c = opt_.ccl_bytes;
  if (input_ccl_ != kNoBuf) b_.declare("INPUT_CCL", c);
  if (output_ccl_ != kNoBuf) b_.declare("OUTPUT_CCL", c);
  if (ccl_ != kNoBuf) b_.declare("CCL", ccl_folded_used_ ? 2 * c : c);
  if (scratch_ != kNoBuf) b_.declare("SCRATCH", scratch_end_);
  return b_.finish();
}

}  // namespace cc::gen
