#include "io/hcclvm/task_feed.h"

#include <algorithm>
#include <system_error>

namespace cc::hcclvm {

TaskFeed::TaskFeed(Db& main, std::vector<Need> needs, unsigned threads, bool reopen) : main_(main) {
  slots_.reserve(needs.size());
  for (Need& n : needs) {
    at_.emplace(n.pid, slots_.size());
    Slot s;
    s.left = n.ops.size();
    s.need = std::move(n);
    slots_.push_back(std::move(s));
  }
  if (threads <= 1 || !reopen || slots_.size() < 2) return;
  unsigned want = static_cast<unsigned>(std::min<std::size_t>(threads, slots_.size()));
  // Each connection starts its read transaction now, while `main` holds its
  // shared lock: no writer can commit in between, so all see one state.
  for (unsigned i = 0; i < want; ++i) {
    auto db = Db::open(main.file());
    if (!db || !db->begin_read()) break;  // fewer connections; reading still works
    conns_.push_back(std::make_unique<Db>(std::move(db.value())));
  }
  window_ = 2 * conns_.size();
  horizon_ = window_;
  for (auto& c : conns_) {
    try {
      threads_.emplace_back([this, db = c.get()] { work(*db); });
    } catch (const std::system_error&) {
      break;  // no more threads: the ones started (or `main`) read the rest
    }
  }
}

TaskFeed::~TaskFeed() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void TaskFeed::read_slot(Db& db, Slot& s) {
  auto r = read_tasks(db, s.need.pid, s.need.ops);
  if (r) s.rows = std::move(r.value());
  else s.error = r.error().message;
}

void TaskFeed::work(Db& db) {
  std::unique_lock lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] {
      while (next_ < slots_.size() && slots_[next_].claimed) ++next_;
      return stop_ || (next_ < slots_.size() && next_ < horizon_);
    });
    if (stop_) return;
    Slot& s = slots_[next_++];
    s.claimed = true;
    lk.unlock();
    // s.need never changes; s.rows and s.error are the reader's until
    // s.read is set under the lock.
    auto r = read_tasks(db, s.need.pid, s.need.ops);
    lk.lock();
    if (r) s.rows = std::move(r.value());
    else s.error = r.error().message;
    s.read = true;
    cv_.notify_all();
  }
}

TaskFeed::Slot* TaskFeed::slot(u64 pid) {
  auto it = at_.find(pid);
  return it == at_.end() ? nullptr : &slots_[it->second];
}

Result<const OpTasks*> TaskFeed::take(u64 pid, i64 op) {
  static const OpTasks kNone;
  Slot* s = slot(pid);
  if (!s) return &kNone;
  std::size_t index = static_cast<std::size_t>(s - slots_.data());
  if (threads_.empty()) {
    if (!s->read) {
      read_slot(main_, *s);
      s->read = true;
    }
  } else {
    std::unique_lock lk(mu_);
    if (index + window_ + 1 > horizon_) {
      horizon_ = index + window_ + 1;
      cv_.notify_all();
    }
    if (!s->claimed) {
      // No reader has started it: read it here rather than wait.
      s->claimed = true;
      lk.unlock();
      auto r = read_tasks(main_, s->need.pid, s->need.ops);
      lk.lock();
      if (r) s->rows = std::move(r.value());
      else s->error = r.error().message;
      s->read = true;
      cv_.notify_all();
    }
    cv_.wait(lk, [&] { return s->read; });
  }
  if (!s->error.empty()) {
    Status st = first_error();
    return Error{st.message()};
  }
  auto it = std::lower_bound(s->rows.begin(), s->rows.end(), op, [](const OpTasks& o, i64 v) { return o.op < v; });
  return it != s->rows.end() && it->op == op ? &*it : &kNone;
}

void TaskFeed::done(u64 pid, i64 op) {
  Slot* s = slot(pid);
  if (!s) return;
  std::lock_guard lk(mu_);
  auto it = std::lower_bound(s->rows.begin(), s->rows.end(), op, [](const OpTasks& o, i64 v) { return o.op < v; });
  if (it != s->rows.end() && it->op == op) {
    std::vector<TaskRow>().swap(it->rows);
    std::vector<CcuSqe>().swap(it->sqes);
  }
  if (s->left && --s->left == 0) std::vector<OpTasks>().swap(s->rows);
}

Status TaskFeed::first_error() {
  if (threads_.empty()) {
    for (Slot& s : slots_)
      if (!s.read) {
        read_slot(main_, s);
        s.read = true;
      }
  } else {
    std::unique_lock lk(mu_);
    horizon_ = slots_.size();
    cv_.notify_all();
    cv_.wait(lk, [&] { return std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.read; }); });
  }
  const Slot* first = nullptr;
  for (const Slot& s : slots_)
    if (!s.error.empty() && (!first || s.need.pid < first->need.pid)) first = &s;
  if (first) return Error{first->error};
  return {};
}

}  // namespace cc::hcclvm
