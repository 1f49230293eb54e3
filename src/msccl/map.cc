#include "msccl/map.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "model/builder.h"
#include "model/op.h"
#include "msccl/layout.h"
#include "msccl/rank_order.h"
#include "msccl/text.h"

namespace cc::msccl {

namespace {

constexpr std::size_t kMaxConnections = 60000;

// A RECORD or WAIT a transmission gets: its notify id, the rank on the other
// end and the step there.
struct Edge {
  u32 notify = 0;
  u32 peer_rank = 0;
  u32 peer_step = kNone;
  MscclRole role = MscclRole::None;
};

class Mapper {
 public:
  Mapper(const Program& p, const Analysis& a, const SimResult& sim, bool inplace)
      : p_(p), a_(a), sim_(sim), lay_(p, inplace), inplace_(inplace) {}

  Result<MappedCase> run() {
    const Options& o = a_.options;
    std::optional<u64> c = checked_mul(o.chunk_bytes, o.iterations);
    if (!c) return Error{fmt::format("{}: the chunk size overflows 64 bits", p_.file)};
    C_ = *c;
    if (std::string err = sizes(); !err.empty()) return Error{err};
    // Each connection is a buffer type of its own (FIFO_A_B_c), and a trace
    // names at most 2^16-1 buffer types.
    if (a_.conns.size() > kMaxConnections)
      return Error{fmt::format("{}: {} connections; collcheck maps each to a buffer of its own and takes at most {}",
                               p_.file, a_.conns.size(), kMaxConnections)};
    TraceBuilder b(make_op(), p_.name);
    b_ = &b;
    declare_buffers();
    index_transmissions();
    dependency_edges();
    fifo_edges();
    // Grown once: a trace of tens of thousands of tasks is otherwise mostly
    // reallocation.
    std::size_t edges = 0;
    for (const std::vector<Edge>& w : waits_) edges += w.size();
    b.trace().tasks.reserve(2 * steps_.size() + 2 * edges + 4 * p_.gpus.size());
    b.trace().groups.reserve(2 * steps_.size());
    b.trace().slices.reserve(4 * steps_.size());
    task_step_.reserve(b.trace().tasks.capacity());
    task_peer_.reserve(b.trace().tasks.capacity());
    task_role_.reserve(b.trace().tasks.capacity());
    for (u32 g = 0; g < p_.gpus.size(); ++g) emit_rank(g);

    std::vector<u32> ids;
    MappedCase out;
    out.mode = inplace_ ? "inplace" : "outofplace";
    out.trace = b.finish(&ids);
    Trace& t = out.trace;
    t.file = p_.file;
    MscclInfo& info = t.msccl;
    info.steps = std::move(steps_);
    info.task_step.assign(t.tasks.size(), kNone);
    info.task_peer_step.assign(t.tasks.size(), kNone);
    info.task_role.assign(t.tasks.size(), MscclRole::None);
    for (u32 i = 0; i < ids.size(); ++i) {
      info.task_step[ids[i]] = task_step_[i];
      info.task_peer_step[ids[i]] = task_peer_[i];
      info.task_role[ids[i]] = task_role_[i];
    }
    for (const Gpu& g : p_.gpus)
      for (const Tb& tb : g.tbs)
        info.tbs.push_back({static_cast<u32>(g.id), static_cast<u32>(tb.id), tb.send, tb.recv, tb.chan});
    std::sort(info.tbs.begin(), info.tbs.end(),
              [](const MscclTbInfo& x, const MscclTbInfo& y) { return std::pair{x.gpu, x.tb} < std::pair{y.gpu, y.tb}; });
    info.step_counts = step_counts();
    info.mode = out.mode;
    info.chunk_bytes = C_;
    info.slice_bytes = o.chunk_bytes;
    info.iterations = o.iterations;
    for (u32& x : anchor_)
      if (x != kNone) x = ids[x];
    for (std::vector<u32>& v : tb_first_index_)
      for (u32& x : v)
        if (x != kNone) x = ids[x];
    for (const Diag& d : a_.diags) out.findings.push_back(finding(d));
    for (const Diag& d : sim_.diags) out.findings.push_back(finding(d));
    if (std::optional<Diag> d = rank_order_warning(p_, a_, sim_, lay_)) out.findings.push_back(finding(*d));
    return out;
  }

 private:
  // ---- sizes and the operator ----

  std::string sizes() {
    auto bytes = [&](i64 chunks) { return checked_mul(static_cast<u64>(std::max<i64>(chunks, 0)), C_); };
    auto in = bytes(lay_.in_chunks), outb = bytes(lay_.out_chunks);
    if (!in || !outb) return fmt::format("{}: buffer sizes of {} chunks of {} bytes overflow 64 bits", p_.file,
                                         p_.nchunksperloop, C_);
    in_bytes_ = *in, out_bytes_ = *outb;
    for (const Gpu& g : p_.gpus)
      if (!bytes(g.s_chunks))
        return fmt::format("{}:{}: s_chunks={} chunks of {} bytes overflow 64 bits", p_.file, g.line, g.s_chunks, C_);
    return {};
  }

  Op make_op() const {
    const Options& o = a_.options;
    Op op;
    op.ranks = static_cast<u32>(p_.ngpus);
    op.data_type = o.data_type;
    op.reduce_op = o.reduce_op;
    op.has_reduce_op = true;
    op.root = o.root;
    u64 u = size_of(o.data_type);
    u64 per = static_cast<u64>(lay_.p) * C_ / u;       // D = p·C per rank
    u64 all = static_cast<u64>(p_.nchunksperloop) * C_ / u;  // c·C
    switch (p_.coll) {
      case Coll::AllReduce: op.type = OpType::AllReduce, op.count = all; break;
      case Coll::AllGather: op.type = OpType::AllGather, op.count = per; break;
      case Coll::ReduceScatter: op.type = OpType::ReduceScatter, op.count = per; break;
      case Coll::AllToAll: op.type = OpType::AllToAll, op.count = per; break;
      case Coll::Broadcast: op.type = OpType::Broadcast, op.count = all; break;
      case Coll::Reduce: op.type = OpType::Reduce, op.count = all; break;
      case Coll::Gather: op.type = OpType::Gather, op.count = per; break;
      case Coll::Scatter: op.type = OpType::Scatter, op.count = per; break;
      case Coll::Send:
      case Coll::Recv:
      case Coll::AllToAllV:
        // §9: the XML carries neither counts nor peers; only `ranks` is known.
        op.known = false;
        break;
    }
    return op;
  }

  void declare_buffers() {
    space_buf_[0] = b_->declare("INPUT", in_bytes_);
    space_buf_[1] = b_->declare("OUTPUT", out_bytes_);
    space_buf_[2] = b_->buf("SCRATCH");
    for (const Gpu& g : p_.gpus)
      b_->declare_rank(static_cast<u32>(g.id), "SCRATCH", static_cast<u64>(std::max(g.s_chunks, 0)) * C_);
    // One FIFO buffer per connection, on the receiver (§11): the chunks in
    // the order they are pushed, one slot of C bytes each, so the k-th chunk
    // pushed is the k-th chunk popped (§6) whatever the steps' counts.
    fifo_buf_.resize(a_.conns.size(), kNoBuf);
    push_slot_.resize(a_.conns.size());
    pop_slot_.resize(a_.conns.size());
    for (u32 c = 0; c < a_.conns.size(); ++c) {
      const Connection& k = a_.conns[c];
      i64 pushed = 0, popped = 0;
      for (const TxRef& r : k.pushes) push_slot_[c].push_back(pushed), pushed += a_.tx(r).cnt;
      for (const TxRef& r : k.pops) pop_slot_[c].push_back(popped), popped += a_.tx(r).cnt;
      std::string name = fmt::format("FIFO_{}_{}_{}", k.from, k.to, k.chan);
      fifo_buf_[c] = b_->buf(name);
      b_->declare_rank(static_cast<u32>(k.to), name, static_cast<u64>(std::max(pushed, popped)) * C_);
    }
  }

  // ---- transmissions and edges ----

  void index_transmissions() {
    base_.resize(p_.gpus.size());
    for (u32 g = 0; g < p_.gpus.size(); ++g) {
      base_[g].assign(p_.gpus[g].tbs.size(), kNone);
      for (u32 t = 0; t < p_.gpus[g].tbs.size(); ++t) {
        const TbInfo& ti = a_.gpus[g].tbs[t];
        if (!ti.kept) continue;
        base_[g][t] = static_cast<u32>(steps_.size());
        for (u32 x = 0; x < ti.fold.tx.size(); ++x) {
          TxRef r{g, t, x};
          const Step& st = a_.step(r, ti.fold.tx[x].first_step);
          steps_.push_back({static_cast<u32>(p_.gpus[g].id), static_cast<u32>(p_.gpus[g].tbs[t].id), st.s, st.line,
                            tx_text(a_, r)});
        }
      }
    }
    waits_.resize(steps_.size());
    posts_.resize(steps_.size());
    anchor_.assign(steps_.size(), kNone);
  }

  u32 flat(const TxRef& r) const { return base_[r.gpu][r.tb] + r.tx; }

  void dependency_edges() {
    for (u32 g = 0; g < p_.gpus.size(); ++g)
      for (u32 t = 0; t < p_.gpus[g].tbs.size(); ++t) {
        const TbInfo& ti = a_.gpus[g].tbs[t];
        if (!ti.kept) continue;
        for (u32 x = 0; x < ti.fold.tx.size(); ++x) {
          const Transmission& tr = ti.fold.tx[x];
          if (sim_.released0[g][t][x] == kNever) continue;
          for (u32 d = tr.dep_begin; d < tr.dep_begin + tr.dep_count; ++d) {
            u32 xt = ti.dep_tb[d], pub = ti.dep_pub[d];
            if (xt == kNone || pub == kNone || xt == t) continue;  // a TB's own order is its stream's
            if (sim_.done0[g][xt][pub] == kNever) continue;
            u32 n = ++notify_;
            u32 rank = static_cast<u32>(p_.gpus[g].id);
            TxRef waiter{g, t, x}, poster{g, xt, pub};
            waits_[flat(waiter)].push_back({n, rank, flat(poster), MscclRole::DepWait});
            posts_[flat(poster)].push_back({n, rank, flat(waiter), MscclRole::DepPost});
          }
        }
      }
  }

  // A receive depends on every send whose chunks it pops. Only a pair the
  // simulation completed, send first, is an edge: a receive that got its
  // chunks from another iteration (a count mismatch that is also a 102) is
  // left without one.
  void fifo_edges() {
    for (u32 c = 0; c < a_.conns.size(); ++c) {
      const Connection& k = a_.conns[c];
      if (k.ambiguous) continue;
      std::size_t i = 0;
      for (std::size_t j = 0; j < k.pops.size(); ++j) {
        const TxRef& Q = k.pops[j];
        i64 qb = pop_slot_[c][j], qe = qb + a_.tx(Q).cnt;
        while (i < k.pushes.size() && push_slot_[c][i] + a_.tx(k.pushes[i]).cnt <= qb) ++i;
        for (std::size_t x = i; x < k.pushes.size() && push_slot_[c][x] < qe; ++x) {
          const TxRef& P = k.pushes[x];
          u64 dp = sim_.done0[P.gpu][P.tb][P.tx], dq = sim_.done0[Q.gpu][Q.tb][Q.tx];
          if (dp == kNever || dq == kNever || dp > dq) continue;
          u32 n = ++notify_;
          posts_[flat(P)].push_back({n, static_cast<u32>(k.to), flat(Q), MscclRole::PushPost});
          waits_[flat(Q)].push_back({n, static_cast<u32>(k.from), flat(P), MscclRole::PopWait});
        }
      }
    }
  }

  // ---- emission ----

  u32 note(u32 pos, u32 step, u32 peer, MscclRole role, u32 line) {
    b_->trace().tasks[pos].line = line;
    task_step_.push_back(step);
    task_peer_.push_back(peer);
    task_role_.push_back(role);
    return pos;
  }

  Slice place(u32 rank, const Gpu& g, Buf buf, i32 off, i32 cnt) const {
    Place pl = lay_.resolve(static_cast<i32>(rank), g, buf, off, cnt);
    Slice s;
    s.rank = rank;
    s.buf = space_buf_[static_cast<int>(pl.space)];
    s.offset = static_cast<u64>(pl.off) * C_;  // a negative chunk wraps: past every buffer's end (201)
    s.len = static_cast<u64>(cnt) * C_;
    return s;
  }

  Slice space_slice(u32 rank, Space sp, u64 chunk, u64 chunks) const {
    Slice s;
    s.rank = rank;
    s.buf = space_buf_[static_cast<int>(sp)];
    s.offset = chunk * C_;
    s.len = chunks * C_;
    return s;
  }

  void emit_rank(u32 g) {
    const Gpu& gpu = p_.gpus[g];
    u32 rank = static_cast<u32>(gpu.id);
    u32 host = kNone;
    std::vector<u32> others;
    for (u32 t = 0; t < gpu.tbs.size(); ++t) {
      if (!a_.gpus[g].tbs[t].kept) continue;
      if (gpu.tbs[t].id == 0) host = t;
      else others.push_back(t);
    }
    std::sort(others.begin(), others.end(), [&](u32 x, u32 y) { return gpu.tbs[x].id < gpu.tbs[y].id; });
    bool setup = lay_.alias == Alias::InInOut, teardown = lay_.alias == Alias::OutIsIn || lay_.alias == Alias::OutInIn;
    if (tb_first_index_.empty()) tb_first_index_.resize(p_.gpus.size());
    tb_first_index_[g].assign(gpu.tbs.size(), kNone);

    std::vector<u32> launch(others.size()), exit(others.size());
    for (u32 i = 0; i < others.size(); ++i) launch[i] = ++notify_, exit[i] = ++notify_;
    bool host_stream = host != kNone || !others.empty() || setup || teardown;
    if (host_stream) {
      u32 line = host != kNone ? gpu.tbs[host].line : gpu.line;
      u32 first = kNone;
      auto mark = [&](u32 pos) {
        if (first == kNone) first = pos;
        return pos;
      };
      u64 p = static_cast<u64>(lay_.p);
      if (setup && in_bytes_)
        mark(note(b_->copy(rank, 0, space_slice(rank, Space::Input, 0, p),
                           space_slice(rank, Space::Output, rank * p, p)),
                  kNone, kNone, MscclRole::InPlaceIn, gpu.line));
      for (u32 i = 0; i < others.size(); ++i)
        mark(note(b_->record(rank, 0, rank, launch[i]), kNone, kNone, MscclRole::Launch, line));
      if (host != kNone) {
        u32 f = emit_tb(g, host);
        if (first == kNone) first = f;
      }
      for (u32 i = 0; i < others.size(); ++i)
        mark(note(b_->wait(rank, 0, rank, exit[i]), kNone, kNone, MscclRole::Exit, gpu.tbs[others[i]].line));
      if (teardown && out_bytes_) {
        u64 at = lay_.alias == Alias::OutInIn ? rank * p : 0;
        u64 n = static_cast<u64>(lay_.out_chunks);
        mark(note(b_->copy(rank, 0, space_slice(rank, Space::Input, at, n), space_slice(rank, Space::Output, 0, n)),
                  kNone, kNone, MscclRole::InPlaceOut, gpu.line));
      }
      if (host != kNone) tb_first_index_[g][host] = first;
    }
    for (u32 i = 0; i < others.size(); ++i) {
      u32 t = others[i];
      u32 stream = static_cast<u32>(gpu.tbs[t].id);
      u32 line = gpu.tbs[t].line;
      u32 first = note(b_->wait(rank, stream, rank, launch[i]), kNone, kNone, MscclRole::Launch, line);
      emit_tb(g, t);
      note(b_->record(rank, stream, rank, exit[i]), kNone, kNone, MscclRole::Exit, line);
      tb_first_index_[g][t] = first;
    }
  }

  // Emits the transmissions of one thread block; returns the first task (kNone: none).
  u32 emit_tb(u32 g, u32 t) {
    const TbInfo& ti = a_.gpus[g].tbs[t];
    u32 first = kNone;
    for (u32 x = 0; x < ti.fold.tx.size(); ++x) {
      u32 f = emit_tx({g, t, x});
      if (first == kNone) first = f;
    }
    return first;
  }

  u32 emit_tx(const TxRef& r) {
    const Gpu& gpu = p_.gpus[r.gpu];
    const Tb& tb = gpu.tbs[r.tb];
    const Transmission& tr = a_.tx(r);
    const TxLink& link = a_.link(r);
    u32 rank = static_cast<u32>(gpu.id);
    u32 stream = static_cast<u32>(tb.id);
    u32 step = flat(r);
    u32 line = tb.steps[tr.first_step].line;
    u32 first = kNone;
    for (const Edge& e : waits_[step]) {
      u32 pos = note(b_->wait(rank, stream, e.peer_rank, e.notify), step, e.peer_step, e.role, line);
      if (first == kNone) first = pos;
    }

    u32 anchor = kNone;
    auto data = [&](u32 pos) {
      note(pos, step, kNone, MscclRole::Data, line);
      if (anchor == kNone) anchor = pos;
    };
    auto marker = [&] {
      Slice e = space_slice(rank, Space::Input, 0, 0);
      data(b_->copy(rank, stream, e, e));
    };
    bool has_in = link.pop_conn != kNone, has_out = link.push_conn != kNone;
    Slice in, out;
    if (has_in) {
      in.rank = rank;
      in.buf = fifo_buf_[link.pop_conn];
      in.offset = static_cast<u64>(pop_slot_[link.pop_conn][link.pop_pos]) * C_;
      in.len = static_cast<u64>(tr.cnt) * C_;
    }
    if (has_out) {
      out.rank = static_cast<u32>(a_.conns[link.push_conn].to);
      out.buf = fifo_buf_[link.push_conn];
      out.offset = static_cast<u64>(push_slot_[link.push_conn][link.push_pos]) * C_;
      out.len = static_cast<u64>(tr.cnt) * C_;
    }
    Slice src = place(rank, gpu, tr.srcbuf, tr.srcoff, tr.cnt);
    Slice dst = place(rank, gpu, tr.dstbuf, tr.dstoff, tr.cnt);
    bool same = src.buf == dst.buf && src.offset == dst.offset;
    // dst := popped ⊕ src (rrc, rrcs): one reduce when src is dst (the usual
    // in-place accumulate), else a copy of src and the reduce.
    auto reduce_popped = [&] {
      if (has_in) {
        if (!same) data(b_->copy(rank, stream, src, dst));
        data(b_->reduce(rank, stream, {in}, dst));
      } else if (!same) {
        data(b_->copy(rank, stream, src, dst));
      }
    };
    if (tr.type == StepType::Unknown) {
      Task k;
      k.type = TaskType::UNKNOWN;
      k.rank = rank;
      k.stream = stream;
      k.tag = b_->trace().intern_tag(tb.steps[tr.first_step].type_name);
      b_->trace().tasks.push_back(k);
      data(static_cast<u32>(b_->trace().tasks.size() - 1));
    } else if (tr.cnt <= 0) {
      marker();
    } else {
      switch (tr.type) {
        case StepType::S:
          if (has_out) data(b_->copy(rank, stream, src, out));
          break;
        case StepType::R:
          if (has_in) data(b_->copy(rank, stream, in, dst));
          break;
        case StepType::Rcs:
          if (has_in && has_out) data(b_->batch_copy(rank, stream, {{in, dst}, {in, out}}));
          else if (has_in) data(b_->copy(rank, stream, in, dst));
          break;
        case StepType::Rrs:
          if (has_in && has_out) {
            data(b_->copy(rank, stream, in, out));
            data(b_->reduce(rank, stream, {src}, out));
          } else if (has_out) {
            data(b_->copy(rank, stream, src, out));
          }
          break;
        case StepType::Rrc:
          reduce_popped();
          break;
        case StepType::Rrcs:
          reduce_popped();
          if (has_out) data(b_->copy(rank, stream, dst, out));
          break;
        case StepType::Cpy:
          if (!same) data(b_->copy(rank, stream, src, dst));
          break;
        case StepType::Re: {
          std::vector<Slice> srcs;
          for (u32 s : tr.sources) srcs.push_back(place(rank, gpu, tr.srcbuf, tb.steps[s].srcoff, tr.cnt));
          data(b_->reduce(rank, stream, srcs, dst));
          break;
        }
        case StepType::Nop:
        case StepType::Unknown:
          break;
      }
      if (anchor == kNone) marker();  // nothing moves (an identical cpy, a FIFO end the block lacks)
    }
    if (first == kNone) first = anchor;
    anchor_[step] = anchor;
    for (const Edge& e : posts_[step]) note(b_->record(rank, stream, e.peer_rank, e.notify), step, e.peer_step, e.role, line);
    return first;
  }

  std::vector<std::pair<std::string, u64>> step_counts() const {
    std::map<std::string, u64> n;
    for (const Gpu& g : p_.gpus)
      for (const Tb& t : g.tbs)
        for (const Step& s : t.steps) n[s.type == StepType::Unknown ? s.type_name : std::string(name(s.type))]++;
    return {n.begin(), n.end()};
  }

  // ---- findings ----

  u32 task_of(const StepRef& r) const {
    if (r.tb == kNone || r.gpu >= p_.gpus.size() || r.tb >= a_.gpus[r.gpu].tbs.size()) return kNone;
    const TbInfo& ti = a_.gpus[r.gpu].tbs[r.tb];
    if (!ti.kept) return kNone;
    if (r.step != kNone && r.step < ti.fold.tx_of_step.size()) {
      u32 x = ti.fold.tx_of_step[r.step];
      if (x != kNone) return anchor_[base_[r.gpu][r.tb] + x];
    }
    return tb_first_index_.empty() ? kNone : tb_first_index_[r.gpu][r.tb];
  }

  Finding finding(const Diag& d) const {
    Finding f = make_finding(d.code, d.stage, d.message);
    f.severity = d.severity;
    f.tag = d.tag;
    f.details = d.details;
    for (const StepRef& r : d.at) {
      u32 id = task_of(r);
      if (id != kNone && std::find(f.tasks.begin(), f.tasks.end(), id) == f.tasks.end()) f.tasks.push_back(id);
    }
    return f;
  }

  const Program& p_;
  const Analysis& a_;
  const SimResult& sim_;
  Layout lay_;
  bool inplace_;
  TraceBuilder* b_ = nullptr;
  u64 C_ = 0, in_bytes_ = 0, out_bytes_ = 0;
  BufId space_buf_[3] = {kInput, kOutput, kNoBuf};
  std::vector<BufId> fifo_buf_;
  std::vector<std::vector<i64>> push_slot_, pop_slot_;
  std::vector<std::vector<u32>> base_;  // (gpu, tb) -> flat index of its first transmission
  std::vector<MscclStepInfo> steps_;
  std::vector<std::vector<Edge>> waits_, posts_;
  std::vector<u32> anchor_;  // flat transmission -> its first data task
  std::vector<std::vector<u32>> tb_first_index_;  // (gpu, tb) -> first task of its stream
  std::vector<u32> task_step_, task_peer_;
  std::vector<MscclRole> task_role_;
  u32 notify_ = 0;
};

}  // namespace

Result<MappedCase> map_mode(const Program& p, const Analysis& a, const SimResult& sim, bool inplace) {
  return Mapper(p, a, sim, inplace).run();
}

Result<std::vector<MappedCase>> map_program(const Program& p, const Options& o) {
  CC_TRY(validate(o));
  if (p.ngpus < 1 || p.nchunksperloop < 1 || static_cast<i32>(p.gpus.size()) != p.ngpus)
    return Error{fmt::format("{}: the algorithm has no usable ranks or chunks", p.file)};
  if (splits_per_rank(p.coll) && p.nchunksperloop % p.ngpus != 0)
    return Error{fmt::format("{}:{}: a {} needs nchunksperloop ({}) to be a multiple of ngpus ({})", p.file, p.line,
                             name(p.coll), p.nchunksperloop, p.ngpus)};
  bool in = p.inplace, out = p.outofplace;
  bool none_declared = !in && !out;
  if (none_declared) out = true;
  if (o.mode == ModeFilter::InPlace) {
    if (!in)
      return Error{fmt::format("{}:{}: the file declares no in-place mode (inplace=\"0\"); --msccl-mode inplace has "
                               "nothing to check",
                               p.file, p.line)};
    out = false;
  } else if (o.mode == ModeFilter::OutOfPlace) {
    if (!out)
      return Error{fmt::format("{}:{}: the file declares no out-of-place mode (outofplace=\"0\"); --msccl-mode "
                               "outofplace has nothing to check",
                               p.file, p.line)};
    in = false;
  }
  Analysis a = analyze(p, o);
  SimResult sim = simulate(a);
  std::vector<MappedCase> cases;
  for (bool inplace : {false, true}) {
    if (inplace ? !in : !out) continue;
    Result<MappedCase> m = map_mode(p, a, sim, inplace);
    if (!m) return m.error();
    if (none_declared) {
      Finding f = make_finding(902, StageTag::Setting,
                               "The file declares neither inplace=\"1\" nor outofplace=\"1\" (no runtime selects it); "
                               "checked as out of place.");
      m->findings.insert(m->findings.begin(), std::move(f));
    }
    cases.push_back(std::move(m.value()));
  }
  return cases;
}

}  // namespace cc::msccl
