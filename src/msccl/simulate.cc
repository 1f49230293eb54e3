#include "msccl/simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "msccl/text.h"

namespace cc::msccl {

namespace {

enum class Block : u8 { None, Dep, Empty, Full };

struct TbState {
  u32 gpu = 0, tb = 0;
  bool kept = false;
  u32 iter = 0, x = 0;
  bool deps_done = false;
  i32 chunks_done = 0;  // of the current transmission
  i32 popped = 0;       // of the current call
  bool queued = false;
  bool finished = false;
  bool has_pub = false;
  u32 pub_iter = 0;
  i32 pub_level = 0;
  Block block = Block::None;
  u32 block_on = kNone;  // flat TB (Dep) or connection (Empty, Full)
  i32 block_level = 0;   // Dep: the level waited for
};

// One call's chunks in a connection, and who pushed them.
struct Entry {
  i32 left = 0, chunks = 0;
  TxRef from;
  u32 iter = 0;
};

struct Fifo {
  std::deque<Entry> q;
  std::vector<u32> wait_pop, wait_push;  // flat TBs blocked on it
};

class Simulator {
 public:
  explicit Simulator(const Analysis& a) : a_(a), p_(*a.program) {
    first_.resize(p_.gpus.size() + 1, 0);
    for (u32 g = 0; g < p_.gpus.size(); ++g) first_[g + 1] = first_[g] + static_cast<u32>(p_.gpus[g].tbs.size());
    tbs_.resize(first_.back());
    flag_waiters_.resize(tbs_.size());
    fifos_.resize(a.conns.size());
    r_.released0.resize(p_.gpus.size());
    r_.done0.resize(p_.gpus.size());
    for (u32 g = 0; g < p_.gpus.size(); ++g) {
      r_.released0[g].resize(p_.gpus[g].tbs.size());
      r_.done0[g].resize(p_.gpus[g].tbs.size());
      for (u32 t = 0; t < p_.gpus[g].tbs.size(); ++t) {
        TbState& s = tbs_[first_[g] + t];
        s.gpu = g, s.tb = t;
        s.kept = a.gpus[g].tbs[t].kept;
        s.finished = !s.kept;
        if (!s.kept) continue;
        std::size_t n = a.gpus[g].tbs[t].fold.tx.size();
        r_.released0[g][t].assign(n, kNever);
        r_.done0[g][t].assign(n, kNever);
      }
    }
  }

  SimResult run() {
    for (u32 i = 0; i < tbs_.size(); ++i)
      if (!tbs_[i].finished) enqueue(i);
    while (!queue_.empty()) {
      u32 i = queue_.front();
      queue_.pop_front();
      tbs_[i].queued = false;
      advance(i);
    }
    r_.complete = std::all_of(tbs_.begin(), tbs_.end(), [](const TbState& s) { return s.finished; });
    if (!r_.complete) report_deadlock();
    report_leftovers();
    return std::move(r_);
  }

 private:
  u32 flat(u32 g, u32 t) const { return first_[g] + t; }
  const TbInfo& info(const TbState& s) const { return a_.gpus[s.gpu].tbs[s.tb]; }

  void enqueue(u32 i) {
    if (tbs_[i].queued || tbs_[i].finished) return;
    tbs_[i].queued = true;
    queue_.push_back(i);
  }
  void wake(std::vector<u32>& list) {
    for (u32 w : list) enqueue(w);
    list.clear();
  }

  bool published(const TbState& x, u32 iter, i32 level) const {
    return x.has_pub && (x.pub_iter > iter || (x.pub_iter == iter && x.pub_level >= level));
  }

  void advance(u32 i) {
    TbState& s = tbs_[i];
    const TbInfo& ti = info(s);
    const std::vector<Transmission>& txs = ti.fold.tx;
    u32 iterations = a_.options.iterations;
    while (true) {
      if (txs.empty()) s.iter = iterations;
      if (s.iter >= iterations) {
        s.finished = true;
        s.block = Block::None;
        return;
      }
      const Transmission& t = txs[s.x];
      if (!s.deps_done) {
        for (u32 d = t.dep_begin; d < t.dep_begin + t.dep_count; ++d) {
          u32 x = ti.dep_tb[d];
          if (x == kNone) continue;  // 101: no such TB
          u32 fx = flat(s.gpu, x);
          i32 level = ti.fold.deps[d].deps;
          if (!published(tbs_[fx], s.iter, level)) {
            s.block = Block::Dep;
            s.block_on = fx;
            s.block_level = level;
            flag_waiters_[fx].push_back(i);
            return;
          }
        }
        s.deps_done = true;
        if (s.iter == 0) r_.released0[s.gpu][s.tb][s.x] = clock_++;
      }
      const TxLink& link = ti.links[s.x];
      i32 m = static_cast<i32>(a_.max_count);
      while (s.chunks_done < t.cnt) {
        i32 call = std::min(m, t.cnt - s.chunks_done);
        if (link.pop_conn != kNone) {
          Fifo& f = fifos_[link.pop_conn];
          while (s.popped < call) {
            if (f.q.empty()) {
              s.block = Block::Empty;
              s.block_on = link.pop_conn;
              f.wait_pop.push_back(i);
              return;
            }
            Entry& e = f.q.front();
            i32 k = std::min(e.left, call - s.popped);
            e.left -= k;
            s.popped += k;
            if (e.left == 0) {
              f.q.pop_front();
              wake(f.wait_push);
            }
          }
        }
        if (link.push_conn != kNone) {
          Fifo& f = fifos_[link.push_conn];
          if (f.q.size() >= a_.fifo_calls) {
            s.block = Block::Full;
            s.block_on = link.push_conn;
            f.wait_push.push_back(i);
            return;
          }
          f.q.push_back({call, call, TxRef{s.gpu, s.tb, s.x}, s.iter});
          wake(f.wait_pop);
        }
        s.chunks_done += call;
        s.popped = 0;
      }
      if (t.hasdep) {
        s.has_pub = true;
        s.pub_iter = s.iter;
        s.pub_level = t.level;
        wake(flag_waiters_[i]);
      }
      if (s.iter == 0) {
        r_.done0[s.gpu][s.tb][s.x] = clock_++;
        r_.order0.push_back({s.gpu, s.tb, s.x});
      }
      s.deps_done = false;
      s.chunks_done = 0;
      s.popped = 0;
      if (++s.x == txs.size()) {
        s.x = 0;
        ++s.iter;
      }
    }
  }

  // ---- reports ----

  std::string where(const TbState& s) const {
    TxRef r{s.gpu, s.tb, s.x};
    return fmt::format("{} {} (iteration {})", tx_position(a_, r), name(a_.tx(r).type), s.iter);
  }

  std::string state_of(u32 fi) const {
    const TbState& x = tbs_[fi];
    if (x.finished) return "has finished";
    return "is blocked at " + where(x);
  }

  // Which blocks of gpu `g` use channel `chan` and with which peers, for the
  // hint of a connection nobody serves.
  std::string peers_hint(u32 g, i32 chan, bool sending) const {
    std::string out;
    const Gpu& gpu = p_.gpus[g];
    for (u32 t = 0; t < gpu.tbs.size(); ++t) {
      const TbInfo& ti = a_.gpus[g].tbs[t];
      if (!ti.kept || gpu.tbs[t].chan != chan) continue;
      i32 peer = sending ? ti.send : ti.recv;
      if (peer < 0) continue;
      out += fmt::format("{}tb {}{}{}", out.empty() ? "" : ", ", gpu.tbs[t].id, sending ? "\u2192" : "\u2190", peer);
    }
    if (out.empty()) return fmt::format("rank {} has no block on chan {} that {}", gpu.id, chan,
                                        sending ? "sends" : "receives");
    return fmt::format("rank {}'s blocks on chan {} {}: {}", gpu.id, chan, sending ? "send to" : "receive from", out);
  }

  std::string conn_name(const Connection& c) const { return fmt::format("{}\u2192{} chan {}", c.from, c.to, c.chan); }

  // What blocks thread block `fi`, and the thread block it waits for (if
  // that one is stuck as well).
  std::pair<std::string, u32> blocker(u32 fi) const {
    const TbState& s = tbs_[fi];
    const Gpu& gpu = p_.gpus[s.gpu];
    switch (s.block) {
      case Block::Dep: {
        const TbState& x = tbs_[s.block_on];
        std::string pub = x.has_pub ? fmt::format("its last published level is {} of iteration {}", x.pub_level,
                                                  x.pub_iter)
                                    : std::string("it has published nothing yet");
        std::string head = fmt::format("waits for tb {} level {} of iteration {}; {}", gpu.tbs[x.tb].id,
                                       s.block_level, s.iter, pub);
        if (x.finished)
          return {fmt::format("{}, and tb {} has finished: it never publishes level >= {}", head, gpu.tbs[x.tb].id,
                              s.block_level),
                  kNone};
        if (s.block_on == fi)
          return {fmt::format("{}; it waits for itself", head), kNone};
        return {fmt::format("{}; tb {} {}", head, gpu.tbs[x.tb].id, state_of(s.block_on)), s.block_on};
      }
      case Block::Empty: {
        const Connection& c = a_.conns[s.block_on];
        if (c.pusher_tbs.empty())
          return {fmt::format("connection {} is empty and no thread block of rank {} sends on it ({})", conn_name(c),
                              c.from, peers_hint(static_cast<u32>(c.from), c.chan, true)),
                  kNone};
        u32 px = flat(static_cast<u32>(c.from), c.pusher_tbs.front());
        if (tbs_[px].finished)
          return {fmt::format("connection {} is empty; its sender {} has finished (it sends {} data steps, {} "
                              "receive{} here)",
                              conn_name(c), tb_name(p_, tbs_[px].gpu, tbs_[px].tb), c.pushes.size(), c.pops.size(),
                              c.pops.size() == 1 ? "s" : ""),
                  kNone};
        return {fmt::format("connection {} is empty; its sender {} {}", conn_name(c),
                            tb_name(p_, tbs_[px].gpu, tbs_[px].tb), state_of(px)),
                px};
      }
      case Block::Full: {
        const Connection& c = a_.conns[s.block_on];
        std::string full = fmt::format("connection {} is full ({} call{})", conn_name(c), a_.fifo_calls,
                                       a_.fifo_calls == 1 ? "" : "s");
        if (c.popper_tbs.empty())
          return {fmt::format("{} and no thread block of rank {} receives from rank {} on chan {} ({})", full, c.to,
                              c.from, c.chan, peers_hint(static_cast<u32>(c.to), c.chan, false)),
                  kNone};
        u32 qx = flat(static_cast<u32>(c.to), c.popper_tbs.front());
        if (tbs_[qx].finished)
          return {fmt::format("{}; its receiver {} has finished", full, tb_name(p_, tbs_[qx].gpu, tbs_[qx].tb)), kNone};
        return {fmt::format("{}; its receiver {} {}", full, tb_name(p_, tbs_[qx].gpu, tbs_[qx].tb), state_of(qx)), qx};
      }
      case Block::None:
        break;
    }
    return {"is blocked", kNone};
  }

  void report_deadlock() {
    for (u32 i = 0; i < tbs_.size(); ++i) {
      const TbState& s = tbs_[i];
      if (s.finished) continue;
      TxRef r{s.gpu, s.tb, s.x};
      const Transmission& t = a_.tx(r);
      Diag d = make_diag(102, StageTag::GenGraph,
                         fmt::format("Deadlock: {} is blocked in iteration {} at step s={} ({}).",
                                     tb_name(p_, s.gpu, s.tb), s.iter, a_.step(r, t.first_step).s, name(t.type)),
                         {{s.gpu, s.tb, t.first_step}});
      d.details.push_back(fmt::format("Blocked : {} {}", tx_ref(a_, r), tx_text(a_, r)));
      std::vector<u32> seen{i};
      std::string chain = tb_name(p_, s.gpu, s.tb);
      auto [text, next] = blocker(i);
      d.details.push_back(fmt::format("{} {}: {}", tb_name(p_, s.gpu, s.tb), name(t.type), text));
      bool cycle = false;
      for (u32 guard = 0; next != kNone && guard < 64; ++guard) {
        const TbState& n = tbs_[next];
        chain += " \u2192 " + tb_name(p_, n.gpu, n.tb);
        if (std::find(seen.begin(), seen.end(), next) != seen.end()) {
          cycle = true;
          break;
        }
        seen.push_back(next);
        u32 cur = next;
        auto b = blocker(cur);
        d.details.push_back(fmt::format("{} {}: {}", tb_name(p_, n.gpu, n.tb), name(a_.tx({n.gpu, n.tb, n.x}).type),
                                        b.first));
        next = b.second;
      }
      d.details.push_back(fmt::format("Wait-for {}: {}", cycle ? "cycle" : "chain", chain));
      r_.diags.push_back(std::move(d));
    }
  }

  void report_leftovers() {
    for (u32 c = 0; c < fifos_.size(); ++c) {
      const Connection& k = a_.conns[c];
      for (const Entry& e : fifos_[c].q) {
        const Transmission& t = a_.tx(e.from);
        Diag d = make_diag(103, StageTag::GenGraph,
                           fmt::format("Message pushed and never received: {} chunk{} of {} (iteration {}) {} left in "
                                       "connection {}.",
                                       e.left, e.left == 1 ? "" : "s", tx_position(a_, e.from), e.iter,
                                       e.left == 1 ? "is" : "are", conn_name(k)),
                           {{e.from.gpu, e.from.tb, t.first_step}});
        d.details.push_back(fmt::format("Send : {} {}", tx_ref(a_, e.from), tx_text(a_, e.from)));
        if (k.popper_tbs.empty()) {
          d.details.push_back(fmt::format("No thread block of rank {} receives from rank {} on chan {} ({}).", k.to,
                                          k.from, k.chan, peers_hint(static_cast<u32>(k.to), k.chan, false)));
        } else {
          u32 qx = flat(static_cast<u32>(k.to), k.popper_tbs.front());
          d.details.push_back(fmt::format("Receiver : {} {} ({} data receive{} per iteration for {} data send{})",
                                          tb_name(p_, tbs_[qx].gpu, tbs_[qx].tb), state_of(qx), k.pops.size(),
                                          k.pops.size() == 1 ? "" : "s", k.pushes.size(),
                                          k.pushes.size() == 1 ? "" : "s"));
        }
        r_.diags.push_back(std::move(d));
      }
    }
  }

  const Analysis& a_;
  const Program& p_;
  std::vector<u32> first_;  // gpu -> first flat TB index
  std::vector<TbState> tbs_;
  std::vector<std::vector<u32>> flag_waiters_;
  std::vector<Fifo> fifos_;
  std::deque<u32> queue_;
  u64 clock_ = 0;
  SimResult r_;
};

}  // namespace

SimResult simulate(const Analysis& a) { return Simulator(a).run(); }

}  // namespace cc::msccl
