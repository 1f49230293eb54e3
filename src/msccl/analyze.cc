#include "msccl/analyze.h"

#include "msccl/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace cc::msccl {

std::string step_position(const Program& p, u32 gpu, u32 tb, u32 step) {
  const Tb& t = p.gpus[gpu].tbs[tb];
  return fmt::format("{}/{}/{}", p.gpus[gpu].id, t.id, t.steps[step].s);
}

namespace {

// "1/1/2 (f.xml:20)"
std::string step_ref(const Program& p, u32 gpu, u32 tb, u32 step) {
  return fmt::format("{} ({}:{})", step_position(p, gpu, tb, step), p.file, p.gpus[gpu].tbs[tb].steps[step].line);
}

// Chunks of the per-rank buffers (§4.2) for the MSCCL-W-CHUNKS comparison.
struct Expected {
  i64 i = 0, o = 0;
};

Expected expected_chunks(const Program& p) {
  i64 c = p.nchunksperloop, pr = per_rank(p);
  switch (p.coll) {
    case Coll::AllGather:
    case Coll::Gather:
      return {pr, c};
    case Coll::ReduceScatter:
    case Coll::Scatter:
      return {c, pr};
    default:
      return {c, c};
  }
}

class Analyzer {
 public:
  Analyzer(const Program& p, const Options& o) : p_(p) {
    a_.program = &p;
    a_.options = o;
  }

  Analysis run() {
    named_warnings();
    a_.gpus.resize(p_.gpus.size());
    for (u32 g = 0; g < p_.gpus.size(); ++g) thread_blocks(g);
    for (u32 g = 0; g < p_.gpus.size(); ++g) dependencies(g);
    for (u32 g = 0; g < p_.gpus.size(); ++g) fifo_sides(g);
    connections();
    execution_parameters();
    return std::move(a_);
  }

 private:
  void add(Diag d) {
    if (d.code == 101) a_.structural_errors = true;
    if (d.code == 602) a_.ambiguous = true;
    a_.diags.push_back(std::move(d));
  }

  void named_warnings() {
    if (!p_.missing_legacy.empty()) {
      std::string names;
      for (const std::string& n : p_.missing_legacy) names += (names.empty() ? "" : ", ") + n;
      Diag d = make_warning("MSCCL-W-LEGACY", StageTag::GenGraph,
                            fmt::format("<algo> lacks {} (a file of an older msccl-tools; the current runtimes refuse "
                                        "it); checked with minBytes=0, maxBytes=0, inplace=0, outofplace=1-inplace.",
                                        names));
      d.details.push_back(fmt::format("Line : {}:{}", p_.file, p_.line));
      add(std::move(d));
    }
    for (const auto& [what, line] : p_.unknown) {
      Diag d = make_warning("MSCCL-W-UNKNOWN", StageTag::GenGraph,
                            fmt::format("{} is not part of the MSCCL format; the runtime ignores it, and so does "
                                        "collcheck.",
                                        what));
      d.details.push_back(fmt::format("First use : {}:{}", p_.file, line));
      add(std::move(d));
    }
    u64 fused = 0;
    const Step* first = nullptr;
    u32 fg = 0, ft = 0, fs = 0;
    for (u32 g = 0; g < p_.gpus.size(); ++g)
      for (u32 t = 0; t < p_.gpus[g].tbs.size(); ++t)
        for (u32 s = 0; s < p_.gpus[g].tbs[t].steps.size(); ++s)
          if (is_fused(p_.gpus[g].tbs[t].steps[s].type)) {
            if (!first) first = &p_.gpus[g].tbs[t].steps[s], fg = g, ft = t, fs = s;
            ++fused;
          }
    if (first)
      add(make_warning("MSCCL-W-RCCL-FUSED", StageTag::GenGraph,
                       fmt::format("{} step{} of the fused types rcs/rrs/rrc/rrcs (first: {} {}): the NVIDIA executor "
                                   "runs them, RCCL's setup refuses the file.",
                                   fused, fused == 1 ? " is" : "s are", step_ref(p_, fg, ft, fs), name(first->type)),
                       {{fg, ft, fs}}));
    chunk_warning();
  }

  void chunk_warning() {
    Expected e = expected_chunks(p_);
    u32 bad = 0, first = kNone;
    for (u32 g = 0; g < p_.gpus.size(); ++g) {
      const Gpu& gpu = p_.gpus[g];
      bool ok_i = gpu.i_chunks == e.i || (gpu.i_chunks == 0 && p_.inplace);
      bool ok_o = gpu.o_chunks == e.o || (gpu.o_chunks == 0 && p_.inplace);
      if (ok_i && ok_o) continue;
      if (first == kNone) first = g;
      ++bad;
    }
    if (first == kNone) return;
    const Gpu& gpu = p_.gpus[first];
    Diag d = make_warning("MSCCL-W-CHUNKS", StageTag::SingleTaskCheck,
                          fmt::format("gpu {} declares i_chunks={} o_chunks={}, but a {} of nchunksperloop={} on {} "
                                      "GPUs has {} input and {} output chunks{}; collcheck checks the real buffers.",
                                      gpu.id, gpu.i_chunks, gpu.o_chunks, name(p_.coll), p_.nchunksperloop, p_.ngpus,
                                      e.i, e.o, bad > 1 ? fmt::format(" ({} GPUs differ)", bad) : std::string()),
                          {{first, kNone, kNone}});
    d.details.push_back(fmt::format("Line : {}:{}", p_.file, gpu.line));
    add(std::move(d));
  }

  void thread_blocks(u32 g) {
    const Gpu& gpu = p_.gpus[g];
    GpuInfo& info = a_.gpus[g];
    info.tbs.resize(gpu.tbs.size());
    std::unordered_map<i32, u32> seen;
    std::vector<i32> ids;
    u32 bad_chan = 0, first_chan = kNone;
    for (u32 t = 0; t < gpu.tbs.size(); ++t) {
      const Tb& tb = gpu.tbs[t];
      TbInfo& ti = info.tbs[t];
      if (tb.id < 0) {
        ti.kept = false;
        add(tb_error(g, t, fmt::format("gpu {}: thread block id {} is negative; the block is left out.", gpu.id, tb.id)));
        continue;
      }
      if (auto [it, fresh] = seen.emplace(tb.id, t); !fresh) {
        ti.kept = false;
        add(tb_error(g, t,
                     fmt::format("gpu {}: thread block id {} appears twice (lines {} and {}); the second is left out.",
                                 gpu.id, tb.id, gpu.tbs[it->second].line, tb.line)));
        continue;
      }
      ids.push_back(tb.id);
      auto peer = [&](i32 v, const char* what) {
        if (v == -1) return -1;
        if (v == gpu.id || v < -1 || v >= p_.ngpus) {
          add(tb_error(g, t,
                       fmt::format("gpu {} tb {}: {}={} is {}; the block has no {} peer.", gpu.id, tb.id, what, v,
                                   v == gpu.id ? "its own rank" : fmt::format("outside the ranks 0..{}", p_.ngpus - 1),
                                   what)));
          return -1;
        }
        return v;
      };
      ti.send = peer(tb.send, "send");
      ti.recv = peer(tb.recv, "recv");
      if (tb.chan < 0) {
        add(tb_error(g, t,
                     fmt::format("gpu {} tb {}: chan={} is negative; the block has no connection.", gpu.id, tb.id,
                                 tb.chan)));
        ti.send = ti.recv = -1;
      } else if (tb.chan >= p_.nchannels) {
        if (first_chan == kNone) first_chan = t;
        ++bad_chan;
      }
      std::vector<Diag> found;
      ti.fold = fold_tb(tb, g, t, found);
      for (Diag& d : found) add(std::move(d));
    }
    if (first_chan != kNone && !chan_warned_) {
      chan_warned_ = true;
      add(make_warning("MSCCL-W-CHANNEL", StageTag::GenGraph,
                       fmt::format("gpu {} tb {} uses chan={} but <algo nchannels=\"{}\">{}; the channel still keys its "
                                   "connections.",
                                   gpu.id, gpu.tbs[first_chan].id, gpu.tbs[first_chan].chan, p_.nchannels,
                                   bad_chan > 1 ? fmt::format(" ({} blocks of this gpu do)", bad_chan) : std::string()),
                       {{g, first_chan, kNone}}));
    }
    std::sort(ids.begin(), ids.end());
    for (u32 i = 0; i < ids.size(); ++i)
      if (ids[i] != static_cast<i32>(i)) {
        add(make_diag(101, StageTag::GenGraph,
                      fmt::format("gpu {}: thread block ids are not 0..{} without holes (id {} is missing); the "
                                  "runtime refuses the file.",
                                  gpu.id, ids.size() - 1, i),
                      {{g, kNone, kNone}}));
        break;
      }
  }

  Diag tb_error(u32 g, u32 t, std::string message) {
    Diag d = make_diag(101, StageTag::GenGraph, std::move(message), {{g, t, kNone}});
    d.details.push_back(fmt::format("Line : {}:{}", p_.file, p_.gpus[g].tbs[t].line));
    return d;
  }

  void dependencies(u32 g) {
    const Gpu& gpu = p_.gpus[g];
    GpuInfo& info = a_.gpus[g];
    std::unordered_map<i32, u32> by_id;
    for (u32 t = 0; t < gpu.tbs.size(); ++t)
      if (info.tbs[t].kept) by_id.emplace(gpu.tbs[t].id, t);
    for (u32 t = 0; t < gpu.tbs.size(); ++t) {
      TbInfo& ti = info.tbs[t];
      if (!ti.kept) continue;
      ti.dep_tb.assign(ti.fold.deps.size(), kNone);
      ti.dep_pub.assign(ti.fold.deps.size(), kNone);
      for (u32 d = 0; d < ti.fold.deps.size(); ++d) {
        const Dep& dep = ti.fold.deps[d];
        auto it = by_id.find(dep.depid);
        const Step& st = gpu.tbs[t].steps[dep.step];
        if (it == by_id.end()) {
          add(make_diag(101, StageTag::GenGraph,
                        fmt::format("{} ({}): depid={} names no thread block of gpu {}; the dependency cannot become "
                                    "an edge.",
                                    step_ref(p_, g, t, dep.step), name(st.type), dep.depid, gpu.id),
                        {{g, t, dep.step}}));
        } else if (dep.deps < 0) {
          add(make_diag(101, StageTag::GenGraph,
                        fmt::format("{} ({}): depid={} with deps={}; a dependency needs a level >= 0.",
                                    step_ref(p_, g, t, dep.step), name(st.type), dep.depid, dep.deps),
                        {{g, t, dep.step}}));
        } else {
          ti.dep_tb[d] = it->second;
          const FoldedTb& x = info.tbs[it->second].fold;
          for (u32 k = 0; k < x.tx.size(); ++k)
            if (x.tx[k].hasdep && x.tx[k].level >= dep.deps) {
              ti.dep_pub[d] = k;
              break;
            }
          u32 pub = ti.dep_pub[d];
          if (pub != kNone && x.tx[pub].level > dep.deps) {
            const Tb& xt = gpu.tbs[it->second];
            const Step& ps = xt.steps[x.tx[pub].last_step];
            Diag w = make_warning(
                "MSCCL-W-DEP-LATE", StageTag::GenGraph,
                fmt::format("{} ({}) waits for tb {} level {}, which tb {} does not publish; the first level >= {} it "
                            "publishes is {} (step s={}), so the wait is released later than written.",
                            step_ref(p_, g, t, dep.step), name(st.type), dep.depid, dep.deps, dep.depid, dep.deps,
                            x.tx[pub].level, ps.s),
                {{g, t, dep.step}, {g, it->second, x.tx[pub].last_step}});
            w.details.push_back("Publisher : " + step_ref(p_, g, it->second, x.tx[pub].last_step) + " " +
                                std::string(name(ps.type)));
            add(std::move(w));
          }
        }
      }
    }
  }

  void fifo_sides(u32 g) {
    const Gpu& gpu = p_.gpus[g];
    GpuInfo& info = a_.gpus[g];
    for (u32 t = 0; t < gpu.tbs.size(); ++t) {
      TbInfo& ti = info.tbs[t];
      if (!ti.kept) continue;
      const Tb& tb = gpu.tbs[t];
      ti.links.assign(ti.fold.tx.size(), {});
      bool send_reported = false, recv_reported = false;
      for (u32 x = 0; x < ti.fold.tx.size(); ++x) {
        const Transmission& tr = ti.fold.tx[x];
        const Step& st = tb.steps[tr.first_step];
        if (pushes(tr.type)) {
          if (ti.send < 0) {
            if (!send_reported)
              add(make_diag(101, StageTag::GenGraph,
                            fmt::format("{} ({}) sends, but tb {} has no send peer{}.", step_ref(p_, g, t, tr.first_step),
                                        name(st.type), tb.id, tb.send == -1 ? "" : " that can be used"),
                            {{g, t, tr.first_step}}));
            send_reported = true;
          } else if (tr.cnt > 0) {
            u32 c = conn(gpu.id, ti.send, tb.chan);
            Connection& k = a_.conns[c];
            if (std::find(k.pusher_tbs.begin(), k.pusher_tbs.end(), t) == k.pusher_tbs.end()) k.pusher_tbs.push_back(t);
            ti.links[x].push_conn = c;
            ti.links[x].push_pos = static_cast<u32>(k.pushes.size());
            k.pushes.push_back({g, t, x});
          }
        }
        if (pops(tr.type)) {
          if (ti.recv < 0) {
            if (!recv_reported)
              add(make_diag(101, StageTag::GenGraph,
                            fmt::format("{} ({}) receives, but tb {} has no recv peer{}.",
                                        step_ref(p_, g, t, tr.first_step), name(st.type), tb.id,
                                        tb.recv == -1 ? "" : " that can be used"),
                            {{g, t, tr.first_step}}));
            recv_reported = true;
          } else if (tr.cnt > 0) {
            u32 c = conn(ti.recv, gpu.id, tb.chan);
            Connection& k = a_.conns[c];
            if (std::find(k.popper_tbs.begin(), k.popper_tbs.end(), t) == k.popper_tbs.end()) k.popper_tbs.push_back(t);
            ti.links[x].pop_conn = c;
            ti.links[x].pop_pos = static_cast<u32>(k.pops.size());
            k.pops.push_back({g, t, x});
          }
        }
      }
    }
  }

  u32 conn(i32 from, i32 to, i32 chan) {
    auto [it, fresh] = conn_index_.emplace(std::make_tuple(from, to, chan), static_cast<u32>(a_.conns.size()));
    if (fresh) {
      Connection c;
      c.from = from, c.to = to, c.chan = chan;
      a_.conns.push_back(c);
    }
    return it->second;
  }

  void connections() {
    // Report in connection order (sender, receiver, channel).
    std::vector<u32> order;
    for (const auto& [key, c] : conn_index_) order.push_back(c);
    u32 remote_bad = 0;
    Diag remote;
    for (u32 c : order) {
      Connection& k = a_.conns[c];
      auto side = [&](std::vector<u32>& tbs, i32 gpu_id, const char* verb) {
        if (tbs.size() < 2) return;
        k.ambiguous = true;
        const Gpu& gpu = p_.gpus[gpu_id];
        Diag d = make_diag(602, StageTag::SyncCheck,
                           fmt::format("Connection {}\u2192{} chan {}: tb {} and tb {} of gpu {} both {} on it; which "
                                       "message each receive gets depends on timing.",
                                       k.from, k.to, k.chan, gpu.tbs[tbs[0]].id, gpu.tbs[tbs[1]].id, gpu_id, verb));
        for (u32 i = 0; i < 2; ++i) {
          d.at.push_back({static_cast<u32>(gpu_id), tbs[i], kNone});
          d.details.push_back(fmt::format("tb {} (line {}) send={} recv={} chan={}", gpu.tbs[tbs[i]].id,
                                          gpu.tbs[tbs[i]].line, gpu.tbs[tbs[i]].send, gpu.tbs[tbs[i]].recv,
                                          gpu.tbs[tbs[i]].chan));
        }
        if (tbs.size() > 2) d.details.push_back(fmt::format("({} thread blocks in all)", tbs.size()));
        d.details.push_back("The pairing of sends and receives is undefined; races and results are not checked.");
        add(std::move(d));
      };
      side(k.pusher_tbs, k.from, "send");
      side(k.popper_tbs, k.to, "receive");
      if (k.ambiguous) continue;
      std::size_t n = std::min(k.pushes.size(), k.pops.size());
      for (std::size_t i = 0; i < n; ++i) {
        const TxRef& P = k.pushes[i];
        const TxRef& Q = k.pops[i];
        const Transmission& tp = a_.tx(P);
        const Transmission& tq = a_.tx(Q);
        if (tp.cnt != tq.cnt) {
          Diag d = make_diag(201, StageTag::SingleTaskCheck,
                             fmt::format("Message {} on connection {}\u2192{} chan {}: the send moves {} chunk{}, its "
                                         "receive {}; one copy with unequal lengths.",
                                         i, k.from, k.to, k.chan, tp.cnt, tp.cnt == 1 ? "" : "s", tq.cnt),
                             {{P.gpu, P.tb, tp.first_step}, {Q.gpu, Q.tb, tq.first_step}});
          d.details.push_back("Send    : " + tx_ref(a_, P) + " " + tx_text(a_, P));
          d.details.push_back("Receive : " + tx_ref(a_, Q) + " " + tx_text(a_, Q));
          d.details.push_back("The runtime splits steps into calls of up to maxAllowedCount chunks, so the pair "
                              "breaks at some message sizes.");
          add(std::move(d));
        }
        std::string why = remote_fields(P, Q);
        if (!why.empty()) {
          if (remote_bad++ == 0) {
            remote = make_warning("MSCCL-W-REMOTE-FIELDS", StageTag::GenGraph, why,
                                  {{P.gpu, P.tb, tp.first_step}, {Q.gpu, Q.tb, tq.first_step}});
          }
        }
      }
    }
    if (remote_bad) {
      if (remote_bad > 1) remote.details.push_back(fmt::format("{} paired steps disagree in all.", remote_bad));
      add(std::move(remote));
    }
  }

  // Where the data a push sends lies on its rank, and where a pop puts it.
  struct Loc {
    bool known = false;
    Buf buf = Buf::I;
    i32 off = 0;
  };
  Loc sent_from(const Transmission& t) {
    if (t.type == StepType::S) return {true, t.srcbuf, t.srcoff};
    if (t.type == StepType::Rcs || t.type == StepType::Rrcs) return {true, t.dstbuf, t.dstoff};
    return {};
  }
  Loc lands_at(const Transmission& t) {
    if (writes_dst(t.type)) return {true, t.dstbuf, t.dstoff};
    return {};
  }

  // Compares the remote-end fields of a pair with the other step (§2.4).
  std::string remote_fields(const TxRef& P, const TxRef& Q) {
    const Transmission& tp = a_.tx(P);
    const Transmission& tq = a_.tx(Q);
    auto text = [&](const TxRef& r, const Transmission& t) {
      return step_ref(p_, r.gpu, r.tb, t.first_step) + " " + std::string(name(t.type));
    };
    if (tp.type == StepType::S && tp.dstoff >= 0) {
      Loc l = lands_at(tq);
      if (l.known && (l.buf != tp.dstbuf || l.off != tp.dstoff))
        return fmt::format("{} names {}[{}] as its remote destination; its receive {} writes {}[{}].", text(P, tp),
                           letter(tp.dstbuf), tp.dstoff, text(Q, tq), letter(l.buf), l.off);
    }
    Loc s = sent_from(tp);
    if (s.known && tq.srcoff >= 0 && (tq.type == StepType::R || tq.type == StepType::Rrs || tq.type == StepType::Rrc ||
                                      tq.type == StepType::Rrcs)) {
      if (s.buf != tq.srcbuf || s.off != tq.srcoff) {
        if (tq.type == StepType::R)
          return fmt::format("{} names {}[{}] as its remote source; its send {} sends {}[{}].", text(Q, tq),
                             letter(tq.srcbuf), tq.srcoff, text(P, tp), letter(s.buf), s.off);
        return fmt::format("{} reduces its own {}[{}] (the kernel reads srcbuf/srcoff locally); its send {} sends "
                           "{}[{}] — correct only if the local operand was meant.",
                           text(Q, tq), letter(tq.srcbuf), tq.srcoff, text(P, tp), letter(s.buf), s.off);
      }
    }
    return {};
  }

  void execution_parameters() {
    const Options& o = a_.options;
    if (o.fifo_depth) a_.fifo_calls = o.fifo_depth;
    else a_.fifo_calls = p_.proto == Proto::Simple ? 2 : 8;
    if (o.max_count) {
      a_.max_count = o.max_count;
    } else if (p_.max_bytes <= 0) {
      a_.max_count = 1;
    } else {
      // §7.2: M = clamp(E / ceil(maxBytes / c), 1, 71).
      u64 e = p_.proto == Proto::Simple ? (u64{2} << 20) : p_.proto == Proto::LL ? (u64{32} << 10) : 576000;
      u64 c = static_cast<u64>(std::max(p_.nchunksperloop, 1));
      u64 per_chunk = (static_cast<u64>(p_.max_bytes) + c - 1) / c;
      u64 m = per_chunk ? e / per_chunk : 71;
      a_.max_count = static_cast<u32>(std::clamp<u64>(m, 1, 71));
    }
  }

  const Program& p_;
  Analysis a_;
  std::map<std::tuple<i32, i32, i32>, u32> conn_index_;
  bool chan_warned_ = false;
};

}  // namespace

Analysis analyze(const Program& p, const Options& options) { return Analyzer(p, options).run(); }

}  // namespace cc::msccl
