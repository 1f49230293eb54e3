#include "check/semantic/semantic.h"

#include <fmt/format.h>

#include "check/aiv_rules.h"
#include "check/semantic/memory.h"
#include "check/semantic/final.h"
#include "model/describe.h"

namespace cc {

namespace {

// What went wrong in one reduce group or copy, as ranges of its destination.
enum class Issue : u8 { Empty, Partial, MissingSource, Double, Mixed, EmptyRead };

struct IssueRange {
  Issue kind;
  u32 src_slice;  // the source involved (kNone: the destination itself)
  u64 begin, end;  // in the destination's frame
  Prov dst, src;   // at `begin`: the destination before, the source
};

class Simulator {
 public:
  Simulator(const Trace& t, FindingSink& out, ContribSets& sets, ProvMemory& mem, SemanticDetail& detail)
      : t_(t), out_(out), sets_(sets), mem_(mem), detail_(detail) {
    auto ms = t.buffers.ids.find("MS");
    ms_ = ms == t.buffers.ids.end() ? kNoBuf : ms->second;
  }

  void apply(u32 id) {
    const Task& k = t_.tasks[id];
    bool reduce = is_reduce_task(k.type);
    // An AIV copy or reduce stage 2 rejects for a reason only its snapshot
    // knows (a UB or AIV_COMM slice past the snapshot's size, another
    // rank's UB) has no defined effect either: like any 201 task, its
    // destination becomes unknown instead of being written.
    bool follow = !(k.flags & kTaskSemanticUnchecked) && (!(k.flags & kTaskAiv) || aiv_task_valid(t_, id));
    // A merged CCU loop keeps each pair's MS contents apart (ccu.md §9.6).
    bool pairs = ms_ != kNoBuf && (k.flags & kTaskCcu) &&
                 (k.type == TaskType::BATCH_TRANS_MEM || k.type == TaskType::BATCH_REDUCE);
    // Read every source of the task before writing any destination.
    reads_.clear();
    spans_.clear();
    ok_.clear();
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& g = t_.group(k, gi);
      bool ok = follow && valid_group(k, g);
      ok_.push_back(ok);
      for (u32 i = 0; i < g.src_count; ++i) {
        std::size_t from = reads_.size();
        if (ok) {
          const Slice& s = t_.slices[g.first_src + i];
          const Slice& d = t_.slices[g.dst];
          ProvMap* own = pairs && s.buf == ms_ ? mem_.find_pair(s.rank, s.buf, gi) : nullptr;
          if (own) read_pair(*own, mem_.map(s.rank, s.buf), s, d.offset);
          else ProvMemory::read(mem_.map(s.rank, s.buf), s.offset, s.len, d.offset, reads_);
        }
        spans_.push_back({from, reads_.size()});
      }
    }
    std::size_t span = 0;
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& g = t_.group(k, gi);
      const Slice& d = t_.slices[g.dst];
      std::size_t first_span = span;
      span += g.src_count;
      if (!ok_[gi]) {
        // A task the stage cannot follow (CCU cast) or one stage 2 rejected:
        // its destination holds data nobody can name.
        if (valid_slice(d)) {
          Prov u;
          u.set = kUnknownSet;
          u.writer = id;
          mem_.map(d.rank, d.buf).update(d.offset, d.offset + d.len, [&](u64, u64, Prov& v) { v = u; });
        }
        continue;
      }
      bool own = pairs && d.buf == ms_;
      ProvMap& dst = own ? mem_.pair(d.rank, d.buf, gi) : mem_.map(d.rank, d.buf);
      issues_.clear();
      if (!reduce) {
        for (std::size_t p = spans_[first_span].first; p < spans_[first_span].second; ++p) {
          Prov v = reads_[p].prov;
          if (v.empty()) note(Issue::EmptyRead, g.first_src, reads_[p].begin, reads_[p].end, Prov{}, v);
          v.writer = id;
          dst.update(reads_[p].begin, reads_[p].end, [&](u64, u64, Prov& x) { x = v; });
        }
      } else {
        check_coverage(dst, d);
        for (u32 i = 0; i < g.src_count; ++i) {
          auto [from, to] = spans_[first_span + i];
          for (std::size_t p = from; p < to; ++p) combine(dst, reads_[p], k, id, g.first_src + i);
        }
      }
      // The slot itself holds what the last pair wrote (later plain tasks read it).
      if (own) {
        holes_.clear();
        ProvMemory::read(dst, d.offset, d.len, d.offset, holes_);
        ProvMap& plain = mem_.map(d.rank, d.buf);
        for (const ProvPiece& p : holes_)
          plain.update(p.begin, p.end, [&](u64, u64, Prov& x) { x = p.prov; });
      }
      report(id, d);
    }
  }

 private:
  // Reads source `s` of a batch pair from the pair's own MS contents, and
  // where those are empty from the slot itself.
  void read_pair(const ProvMap& own, const ProvMap& plain, const Slice& s, u64 dst_offset) {
    std::size_t from = reads_.size();
    ProvMemory::read(own, s.offset, s.len, dst_offset, reads_);
    std::vector<ProvPiece> pieces(reads_.begin() + static_cast<std::ptrdiff_t>(from), reads_.end());
    reads_.resize(from);
    for (const ProvPiece& p : pieces) {
      if (!p.prov.empty()) reads_.push_back(p);
      else ProvMemory::read(plain, s.offset + (p.begin - dst_offset), p.end - p.begin, p.begin, reads_);
    }
  }

  bool valid_slice(const Slice& s) const {
    if (s.rank >= t_.op.ranks || s.buf >= t_.buffers.names.size()) return false;
    u64 size = t_.buffer_size(s.rank, s.buf);
    u64 limit = BufferSizes::end_limit(size);
    return size != BufferSizes::kUndeclared && s.offset <= limit && s.len <= limit - s.offset;
  }

  // The rules of 201 that leave a group's effect undefined.
  bool valid_group(const Task& k, const Group& g) const {
    const Slice& d = t_.slices[g.dst];
    if (!valid_slice(d) || g.src_count == 0) return false;
    if (is_reduce_task(k.type) && d.len % size_of(k.data_type) != 0) return false;
    for (u32 i = 0; i < g.src_count; ++i) {
      const Slice& s = t_.slices[g.first_src + i];
      if (!valid_slice(s) || s.len != d.len) return false;
    }
    return true;
  }

  void note(Issue kind, u32 src_slice, u64 b, u64 e, const Prov& dst, const Prov& src) {
    if (!issues_.empty()) {
      IssueRange& last = issues_.back();
      if (last.kind == kind && last.src_slice == src_slice && last.end == b) {
        last.end = e;
        return;
      }
    }
    issues_.push_back({kind, src_slice, b, e, dst, src});
  }

  // 401/402: a reduce destination must be filled before the first source.
  void check_coverage(const ProvMap& dst, const Slice& d) {
    u64 filled = 0;
    dst.scan(d.offset, d.offset + d.len, [&](u64 b, u64 e, const Prov& p) {
      if (!p.empty()) filled += e - b;
    });
    if (filled == d.len) return;  // the common case: no pieces built
    holes_.clear();
    ProvMemory::read(dst, d.offset, d.len, d.offset, holes_);
    Issue kind = filled == 0 ? Issue::Empty : Issue::Partial;
    for (const ProvPiece& p : holes_)
      if (p.prov.empty()) note(kind, kNone, p.begin, p.end, p.prov, Prov{});
  }

  void combine(ProvMap& dst, const ProvPiece& piece, const Task& k, u32 id, u32 src_slice) {
    const Prov& v = piece.prov;
    u8 op = static_cast<u8>(k.reduce_op);
    dst.update(piece.begin, piece.end, [&](u64 b, u64 e, Prov& x) {
      Prov before = x;
      if (x.unknown() || v.unknown()) {
        x = Prov{};
        x.set = kUnknownSet;
      } else if (x.empty()) {  // reported by check_coverage
        x = v;
        x.flags |= kProvPoisoned;
      } else if (v.empty()) {
        note(Issue::MissingSource, src_slice, b, e, before, v);
        x.flags |= kProvPoisoned;
      } else {
        ContribSets::Union u = sets_.unite(x.set, v.set, v.shift - x.shift);
        if (u.overlap) note(Issue::Double, src_slice, b, e, before, v);
        bool was_mixed = x.op == kMixedOp || v.op == kMixedOp;
        bool mixed = was_mixed || (sets_.total(x.set) > 1 && x.op != op && x.op != kNoOp) ||
                     (sets_.total(v.set) > 1 && v.op != op && v.op != kNoOp);
        if (mixed && !was_mixed) note(Issue::Mixed, src_slice, b, e, before, v);
        x.set = u.set;
        x.shift += u.adjust;
        x.op = mixed ? kMixedOp : op;
        x.flags |= v.flags;
      }
      x.writer = id;
    });
  }

  void report(u32 id, const Slice& d) {
    for (const IssueRange& is : issues_) {
      switch (is.kind) {
        case Issue::Empty:
          emit(401, id, d, is, "the reduce destination holds no data: nothing was written there before it");
          emit(403, id, d, is, "reduce into an unfilled destination");
          break;
        case Issue::Partial:
          emit(402, id, d, is, partial_text(d, is));
          emit(403, id, d, is, "reduce into a partly filled destination");
          break;
        case Issue::MissingSource:
          emit(403, id, d, is, fmt::format("a missing reduce source: {} holds no data",
                                            source_text(is, d.offset)));
          break;
        case Issue::Double:
          emit(403, id, d, is, fmt::format("a contribution counted twice: the destination already holds {}, "
                                            "the source adds {}",
                                            describe_data(sets_, is.dst, is.begin, is.end),
                                            describe_data(sets_, is.src, is.begin, is.end)));
          break;
        case Issue::Mixed:
          emit(403, id, d, is, fmt::format("reduce operators mixed: {} {} combines {} with {}",
                                            name(t_.tasks[id].type), name(t_.tasks[id].reduce_op),
                                            describe_data(sets_, is.dst, is.begin, is.end),
                                            describe_data(sets_, is.src, is.begin, is.end)));
          break;
        case Issue::EmptyRead:
          emit(404, id, d, is, fmt::format("a copy reads bytes with no data, into rank {} {} {}", d.rank,
                                            t_.buffers.name(d.buf), hex_range(is.begin, is.end)));
          break;
      }
    }
  }

  // The source range behind destination range [b, e) of an issue.
  std::string source_text(const IssueRange& is, u64 dst_offset) const {
    const Slice& s = t_.slices[is.src_slice];
    return fmt::format("rank {} {} {}", s.rank, t_.buffers.name(s.buf),
                       hex_range(s.offset + (is.begin - dst_offset), s.offset + (is.end - dst_offset)));
  }

  std::string partial_text(const Slice& d, const IssueRange& is) const {
    const char* where = is.begin == d.offset ? "head" : is.end == d.offset + d.len ? "tail" : "hole";
    u64 filled = 0;
    for (const ProvPiece& p : holes_)
      if (!p.prov.empty()) filled += p.end - p.begin;
    return fmt::format("the reduce destination is only partly filled: expected data in {}, found {:#x} of "
                       "{:#x} bytes; missing {} {}",
                       hex_range(d.offset, d.offset + d.len), filled, d.len, where, hex_range(is.begin, is.end));
  }

  void emit(u16 code, u32 id, const Slice& d, const IssueRange& is, const std::string& what) {
    if (code == 404) ++detail_.empty_reads;
    else ++detail_.simulation_errors;
    if (!out_.wants(code)) {
      out_.count(code, code_severity(code));
      return;
    }
    // 404 names the bytes it read; the others the destination's.
    std::string range = code == 404 ? source_text(is, d.offset)
                                    : fmt::format("rank {} {} {}", d.rank, t_.buffers.name(d.buf),
                                                  hex_range(is.begin, is.end));
    range[0] = 'R';
    Finding f = make_finding(code, StageTag::SemanticCheck, fmt::format("{}: {}.", range, what));
    f.details.push_back("Task: " + task_line(t_, id));
    f.details.push_back("Provenance:");
    if (code == 404) {
      u64 from = t_.slices[is.src_slice].offset + (is.begin - d.offset);
      f.details.push_back(fmt::format("  {}  {}", hex_range(from, from + (is.end - is.begin)),
                                      describe_prov(sets_, is.src, is.begin)));
    } else {
      f.details.push_back(fmt::format("  {}  destination before: {}", hex_range(is.begin, is.end),
                                      describe_prov(sets_, is.dst, is.begin)));
      if (is.src_slice != kNone)
        f.details.push_back(fmt::format("  {}  source {}: {}", hex_range(is.begin, is.end), source_text(is, d.offset),
                                        describe_prov(sets_, is.src, is.begin)));
    }
    u32 writer = code == 404 ? is.src.writer : is.dst.writer;
    f.details.push_back(last_writer_line(t_, writer));
    f.tasks.push_back(id);
    if (writer != kNone && writer != id) f.tasks.push_back(writer);
    out_.add(std::move(f));
  }

  const Trace& t_;
  FindingSink& out_;
  ContribSets& sets_;
  ProvMemory& mem_;
  SemanticDetail& detail_;
  std::vector<ProvPiece> reads_, holes_;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;
  std::vector<IssueRange> issues_;
  std::vector<bool> ok_;
  BufId ms_ = kNoBuf;
};

}  // namespace

void check_semantic(const Trace& trace, const TaskGraph& graph, FindingSink& out, SemanticStats* stats,
                    SemanticDetail* detail) {
  check_semantic(trace, data_order(trace, graph), out, stats, detail);
}

void check_semantic(const Trace& trace, const DataOrder& order, FindingSink& out, SemanticStats* stats,
                    SemanticDetail* detail) {
  SemanticDetail local;
  SemanticDetail& det = detail ? *detail : local;
  ContribSets sets;
  ProvMemory mem(trace, sets);
  Simulator sim(trace, out, sets, mem, det);
  u64 data = 0;
  // The memory tasks in τ (graph/data_order.h), their records fetched ahead.
  const std::vector<u32>& ids = order.tasks;
  auto id_at = [&](std::size_t i) { return ids[i]; };
  for (std::size_t i = 0; i < ids.size(); ++i) {
    fetch_ahead(trace, id_at, i, ids.size());
    u32 id = ids[i];
    if (!is_data_task(trace.tasks[id].type)) continue;  // an AIV flag operation
    ++data;
    sim.apply(id);
  }
  compare_results(trace, sets, mem, out, det);
  if (stats) {
    stats->data_tasks = data;
    stats->segments = mem.segments();
    stats->sets = sets.size();
    stats->unions = sets.unions();
    stats->memo_hits = sets.memo_hits();
  }
}

}  // namespace cc
