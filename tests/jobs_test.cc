#include "model/jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace cc {
namespace {

TEST(RunJobs, EveryJobRunsOnceAtEveryWorkerCount) {
  for (unsigned workers : {0u, 1u, 2u, 3u, 8u}) {
    for (std::size_t n : {0u, 1u, 2u, 7u, 100u}) {
      std::vector<std::atomic<int>> runs(n);
      std::vector<Job> jobs;
      for (std::size_t i = 0; i < n; ++i) jobs.push_back([&runs, i] { runs[i].fetch_add(1); });
      run_jobs(workers, jobs);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << workers << " workers, job " << i;
    }
  }
}

TEST(RunJobs, OneWorkerRunsInListOrderOnTheCallingThread) {
  std::vector<int> order;
  std::vector<std::thread::id> where;
  std::vector<Job> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back([&, i] {
    order.push_back(i);
    where.push_back(std::this_thread::get_id());
  });
  run_jobs(1, jobs);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (std::thread::id id : where) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(RunJobs, SeveralWorkersRunJobsAtTheSameTime) {
  // Two jobs that each wait for the other to have started finish only if
  // they run at once: a pool that ran them one after another would hang
  // here (the test's timeout), so this fails rather than passing vacuously.
  std::atomic<int> started{0};
  auto meet = [&] {
    started.fetch_add(1);
    while (started.load() < 2) std::this_thread::yield();
  };
  std::vector<Job> jobs{meet, meet};
  run_jobs(2, jobs);
  EXPECT_EQ(started.load(), 2);
}

}  // namespace
}  // namespace cc
