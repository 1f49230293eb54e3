#include "mutate/mutant_stream.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace cc::mutate {

namespace {

// Workers take jobs in order but may finish out of order; the caller's
// thread hands results on strictly in order. A worker does not start job
// i until job i - window has been handed on: that bounds the mutants
// waiting in memory when one is slow to label.
class Stream {
 public:
  Stream(const Trace& t, const std::vector<MutantJob>& jobs, unsigned threads)
      : t_(t), jobs_(jobs), threads_(std::max(1u, threads)), window_(2 * threads_) {}

  Status run(const std::function<Status(Mutant&&)>& emit) {
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < threads_; ++i) workers.emplace_back([this] { work(); });
    Status status;
    for (std::size_t next = 0; next < jobs_.size() && status; ++next) {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return ready_.count(next) != 0; });
      Result<Mutant> r = std::move(ready_.at(next));
      ready_.erase(next);
      emitted_ = next + 1;
      lock.unlock();
      cv_.notify_all();
      status = r ? emit(std::move(*r)) : Status(r.error());
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& w : workers) w.join();
    return status;
  }

 private:
  void work() {
    for (;;) {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stop_ || taken_ >= jobs_.size() || taken_ < emitted_ + window_; });
      if (stop_ || taken_ >= jobs_.size()) return;
      std::size_t i = taken_++;
      lock.unlock();
      Result<Mutant> r = make_mutant(t_, jobs_[i]);
      lock.lock();
      ready_.emplace(i, std::move(r));
      lock.unlock();
      cv_.notify_all();
    }
  }

  const Trace& t_;
  const std::vector<MutantJob>& jobs_;
  const unsigned threads_;
  const std::size_t window_;
  std::mutex m_;
  std::condition_variable cv_;
  std::map<std::size_t, Result<Mutant>> ready_;
  std::size_t taken_ = 0, emitted_ = 0;
  bool stop_ = false;
};

}  // namespace

Status stream_mutants(const Trace& t, const std::vector<MutantJob>& jobs, unsigned threads,
                      const std::function<Status(Mutant&&)>& emit) {
  if (jobs.empty()) return {};
  return Stream(t, jobs, threads).run(emit);
}

}  // namespace cc::mutate
