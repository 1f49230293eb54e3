#include "model/jobs.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace cc {

void run_jobs(unsigned workers, std::span<const Job> jobs) {
  std::size_t threads = std::min<std::size_t>(std::max(1u, workers), jobs.size());
  if (threads <= 1) {
    for (const Job& job : jobs) job();
    return;
  }
  std::atomic<std::size_t> next{0};
  auto take = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < jobs.size();) jobs[i]();
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(take);
  take();
  for (std::thread& th : helpers) th.join();
}

}  // namespace cc
