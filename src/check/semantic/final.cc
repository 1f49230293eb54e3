#include "check/semantic/final.h"

#include <fmt/format.h>

#include <algorithm>

#include "check/semantic/layout.h"
#include "model/describe.h"

namespace cc {

namespace {

// A run of a result buffer with one provenance, within one required block
// (or, for nothing at all, a stretch over back-to-back blocks).
struct Piece {
  u64 begin = 0, end = 0;
  Prov have;
  RequiredBlock blk;   // the block `begin` lies in
  u16 code = 0;        // 0: as required; else 406, 407 or 409
  bool unknown = false;
  bool over = false;   // 408: a run from an earlier block continues here
  RequiredBlock run_blk;  // for `over`: the block the run starts in
};

class Comparer {
 public:
  Comparer(const Trace& t, ContribSets& sets, RequiredLayout& layout, FindingSink& out, SemanticDetail& det)
      : t_(t), sets_(sets), layout_(layout), out_(out), det_(det) {}

  void rank(u32 r, const ProvMap& m) {
    rank_ = r;
    collect(m);
    mark_runs();
    emit_all(r);
  }

  void finish() {
    if (!det_.unknown_bytes) return;
    if (!out_.wants(902)) {
      out_.count(902, Severity::Warning);
      return;
    }
    Finding f = make_finding(
        902, StageTag::SemanticCheck,
        fmt::format("SemanticCheck could not verify {} byte{} of required results: tasks whose data it cannot "
                    "follow (CCU casts, or tasks stage 2 rejected) wrote them; first at rank {} {} {}.",
                    det_.unknown_bytes, det_.unknown_bytes == 1 ? "" : "s", unknown_rank_,
                    t_.buffers.name(layout_.result_buffer()), hex_range(unknown_b_, unknown_e_)));
    f.bytes = ByteRange{unknown_rank_, std::string(t_.buffers.name(layout_.result_buffer())), unknown_b_, unknown_e_};
    if (unknown_writer_ != kNone) {
      f.details.push_back(last_writer_line(t_, unknown_writer_));
      f.tasks.push_back(unknown_writer_);
    }
    out_.add(std::move(f));
  }

 private:
  u16 classify(const Prov& have, const Prov& want) const {
    if (have.empty()) return 406;
    if (have.flags || have.op == kMixedOp) return 409;
    if (have.set == want.set && have.shift == want.shift)
      return sets_.total(want.set) > 1 && have.op != want.op ? 409 : 0;
    // Right count, some contribution wrong (from another rank or offset, or
    // one counted twice in place of another): 407, as checks.md words it.
    return sets_.total(have.set) != sets_.total(want.set) ? 409 : 407;
  }

  void add(u64 b, u64 e, const Prov& have, const RequiredBlock& blk) {
    Piece p;
    p.begin = b;
    p.end = e;
    p.have = have;
    p.blk = blk;
    if (have.unknown()) {
      p.unknown = true;
      if (!det_.unknown_bytes) unknown_rank_ = rank_, unknown_b_ = b, unknown_e_ = e, unknown_writer_ = have.writer;
      det_.unknown_bytes += e - b;
    } else {
      p.code = classify(have, blk.want);
    }
    pieces_.push_back(p);
  }

  // Pieces of every required block of the selected rank, in address order.
  void collect(const ProvMap& m) {
    pieces_.clear();
    ProvMap::View segs = m.segments();
    RequiredBlock blk;
    for (u64 a = 0; layout_.next(a, blk);) {
      a = std::max(a, blk.begin);
      auto it = segs.upper_bound(a);
      if (it != segs.begin() && std::prev(it)->end > a) --it;
      while (a < blk.end) {
        if (it == segs.end() || it->begin > a) {
          // Nothing until the next segment: with back-to-back blocks one
          // piece covers the whole stretch, whatever its length.
          u64 stop = it == segs.end() ? layout_.span_end() : it->begin;
          u64 e = layout_.contiguous() ? std::min(stop, layout_.span_end()) : std::min(stop, blk.end);
          add(a, e, Prov{}, blk);
          a = e;
          continue;
        }
        u64 e = std::min(it->end, blk.end);
        add(a, e, it->value, blk);
        a = e;
        if (it->end <= a) ++it;
      }
    }
  }

  static bool runnable(const ContribSets& sets, const Prov& p) {
    return !p.empty() && !p.unknown() && !p.flags && sets.is_single(p.set);
  }

  // 408: a run copied contiguously from one rank's INPUT that goes on past
  // the end of the block it starts in, into bytes that are wrong there.
  void mark_runs() {
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
      if (!runnable(sets_, pieces_[i].have)) continue;
      std::size_t j = i + 1;
      while (j < pieces_.size() && pieces_[j].begin == pieces_[j - 1].end &&
             pieces_[j].have.same_data(pieces_[i].have))
        ++j;
      for (std::size_t k = i + 1; k < j; ++k)
        if (pieces_[k].blk.begin != pieces_[i].blk.begin && pieces_[k].code != 0) {
          pieces_[k].over = true;
          pieces_[k].run_blk = pieces_[i].blk;
        }
      i = j - 1;
    }
  }

  void emit_all(u32 r) {
    for (std::size_t i = 0; i < pieces_.size();) {
      u16 code = pieces_[i].code;
      std::size_t j = i + 1;
      if (code)
        while (j < pieces_.size() && pieces_[j].code == code && pieces_[j].begin == pieces_[j - 1].end &&
               (code == 406 || pieces_[j].blk.begin == pieces_[i].blk.begin))
          ++j;
      if (code) emit(r, code, i, j);
      i = j;
    }
    for (std::size_t i = 0; i < pieces_.size();) {
      std::size_t j = i + 1;
      if (pieces_[i].over)
        while (j < pieces_.size() && pieces_[j].over && pieces_[j].begin == pieces_[j - 1].end &&
               pieces_[j].run_blk.begin == pieces_[i].run_blk.begin)
          ++j;
      if (pieces_[i].over) emit(r, 408, i, j);
      i = j;
    }
  }

  bool counted_twice(const Prov& p) const {
    for (const ContribTerm& x : sets_.terms(p.set))
      if (x.mult > 1) return true;
    return false;
  }

  std::string reason_409(const Piece& p) const {
    const Prov &h = p.have, &w = p.blk.want;
    if (h.flags & kProvPoisoned) return "";  // the found text says it
    if (h.op == kMixedOp) return " (reduce operators mixed)";
    u64 th = sets_.total(h.set), tw = sets_.total(w.set);
    if (th != tw) return fmt::format(" ({} contribution{} where {} {} needed)", th, th == 1 ? "" : "s", tw,
                                     tw == 1 ? "is" : "are");
    return fmt::format(" ({} where {} is needed)", name(static_cast<ReduceOp>(h.op)),
                       name(static_cast<ReduceOp>(w.op)));
  }

  void emit(u32 r, u16 code, std::size_t i, std::size_t j) {
    u64 b = pieces_[i].begin, e = pieces_[j - 1].end;
    det_.wrong.push_back({r, b, e, code});
    if (!out_.wants(code)) {
      out_.count(code, Severity::Error);
      return;
    }
    const Piece& p0 = pieces_[i];
    bool uniform = true;
    for (std::size_t k = i + 1; k < j; ++k) uniform = uniform && pieces_[k].have.same_data(p0.have);
    std::string found = uniform ? describe_data(sets_, p0.have, b, e)
                                : describe_data(sets_, p0.have, p0.begin, p0.end) + " and other data";
    std::string why;
    if (code == 409) why = reason_409(p0);
    if (code == 407 && counted_twice(p0.have)) why = " (a contribution counted twice, in place of a missing one)";
    if (code == 408) {
      u32 q = sets_.terms(p0.have.set)[0].lo;
      why = fmt::format(": the run copied contiguously from rank {} INPUT that fills {} continues past its end", q,
                        hex_range(p0.run_blk.begin, p0.run_blk.end));
    }
    Finding f = make_finding(code, StageTag::SemanticCheck,
                             fmt::format("Rank {} {} {}: {} needs {} here, found {}{}.", r,
                                         t_.buffers.name(layout_.result_buffer()), hex_range(b, e),
                                         name(t_.op.type), layout_.expected_text(b, e), found, why));
    f.bytes = ByteRange{r, std::string(t_.buffers.name(layout_.result_buffer())), b, e};
    f.details.push_back("Provenance:");
    for (std::size_t k = i; k < j && k < i + 8; ++k)
      f.details.push_back(fmt::format("  {}  {}", hex_range(pieces_[k].begin, pieces_[k].end),
                                      describe_prov(sets_, pieces_[k].have, pieces_[k].begin)));
    if (j - i > 8) f.details.push_back(fmt::format("  … and {} more pieces", j - i - 8));
    std::vector<u32> writers;
    for (std::size_t k = i; k < j; ++k) {
      u32 w = pieces_[k].have.writer;
      if (std::find(writers.begin(), writers.end(), w) == writers.end()) writers.push_back(w);
    }
    for (std::size_t k = 0; k < writers.size() && k < 3; ++k) {
      u32 w = writers[k];
      f.details.push_back(last_writer_line(t_, w));
      if (w != kNone) f.tasks.push_back(w);
    }
    if (writers.size() > 3) f.details.push_back(fmt::format("  … and {} more writers", writers.size() - 3));
    out_.add(std::move(f));
  }

  const Trace& t_;
  ContribSets& sets_;
  RequiredLayout& layout_;
  FindingSink& out_;
  SemanticDetail& det_;
  std::vector<Piece> pieces_;
  u32 rank_ = 0;
  u32 unknown_rank_ = 0, unknown_writer_ = kNone;
  u64 unknown_b_ = 0, unknown_e_ = 0;
};

}  // namespace

void compare_results(const Trace& t, ContribSets& sets, const ProvMemory& mem, FindingSink& out,
                     SemanticDetail& detail) {
  RequiredLayout layout(t, sets, out);
  if (!layout.checkable()) return;
  Comparer cmp(t, sets, layout, out, detail);
  BufId res = layout.result_buffer();
  ProvMap scratch;
  for (u32 r = layout.first_rank(); r < layout.end_rank(); ++r) {
    if (!layout.select(r)) continue;
    const ProvMap* m = mem.find(r, res);
    if (!m) {
      // Never touched: its content before any task ran (INPUT, in place),
      // or nothing.
      scratch = mem.initial(r, res);
      m = &scratch;
    }
    cmp.rank(r, *m);
  }
  cmp.finish();
}

}  // namespace cc
