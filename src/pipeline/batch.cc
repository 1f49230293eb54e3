#include "pipeline/batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "pipeline/progress_line.h"

namespace cc {

Result<Shard> parse_shard(const std::string& text) {
  unsigned k = 0, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%u/%u%c", &k, &n, &tail) != 2 || n == 0 || k == 0 || k > n)
    return Error{fmt::format("--shard {}: write K/N with 1 <= K <= N", text)};
  return Shard{k - 1, n};
}

bool in_shard(const std::string& name, u32 index, u32 count) {
  // FNV-1a: stable across machines, compilers and runs (unlike std::hash).
  u64 h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h % count == index;
}

namespace {

using Clock = std::chrono::steady_clock;

// One input file as the pool works on it.
struct FileState {
  bool loaded = false;
  std::vector<LoadedCase> cases;
  std::vector<u32> index;  // each case's position in the unsharded case list
  std::vector<std::optional<CaseOutcome>> done;
  std::size_t pending = 0;  // cases not yet checked
  FileOutcome outcome;
};

class Pool {
 public:
  Pool(const std::vector<std::string>& files, const InputOptions& load, const ExpandOptions& expand,
       const BatchOptions& opt,
       const CaseChecker& check)
      : files_(files), load_(load), expand_(expand), opt_(opt), check_(check), state_(files.size()),
        line_(opt.progress) {
    for (std::size_t i = 0; i < files.size(); ++i) loads_.push_back(i);
  }

  void run(const OutcomeSink& emit) {
    unsigned jobs = std::max(1u, opt_.jobs);
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < jobs; ++j) threads.emplace_back([this] { work(); });
    start_ = Clock::now();
    for (std::size_t i = 0; i < files_.size(); ++i) {
      std::unique_lock<std::mutex> lock(m_);
      while (!complete(i)) {
        if (opt_.progress) {
          draw_progress();
          done_cv_.wait_for(lock, std::chrono::milliseconds(200));
        } else {
          done_cv_.wait(lock);
        }
      }
      FileOutcome out = std::move(state_[i].outcome);
      for (auto& c : state_[i].done) out.cases.push_back(std::move(*c));
      state_[i] = FileState{};
      ++files_done_;
      if (opt_.progress) draw_progress();
      lock.unlock();
      if (opt_.progress) clear_progress();
      emit(std::move(out));
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads) t.join();
  }

 private:
  bool complete(std::size_t i) const { return state_[i].loaded && state_[i].pending == 0; }

  // Checks come before loads, so that a loaded file's traces are freed
  // before the next file is read: memory stays near `jobs` operators.
  void work() {
    for (;;) {
      std::unique_lock<std::mutex> lock(m_);
      work_cv_.wait(lock, [&] { return stop_ || !checks_.empty() || !loads_.empty(); });
      if (stop_) return;
      if (!checks_.empty()) {
        auto [f, c] = checks_.front();
        checks_.pop_front();
        FileState& st = state_[f];
        bool several = st.cases.size() > 1;
        LoadedCase lc = std::move(st.cases[c]);
        lock.unlock();
        CaseOutcome o = check_(lc, files_[f], several);
        o.result.order_file = static_cast<u32>(f);
        o.result.order_case = st.index[c];
        u64 tasks = o.result.tasks;
        lc = LoadedCase{};  // free the trace outside the lock
        lock.lock();
        st.done[c] = std::move(o);
        --st.pending;
        tasks_done_ += tasks;
        ++cases_done_;
        done_cv_.notify_all();
        continue;
      }
      std::size_t f = loads_.front();
      loads_.pop_front();
      lock.unlock();
      FileState loaded = load(f);
      lock.lock();
      std::size_t n = loaded.cases.size();
      state_[f] = std::move(loaded);
      for (std::size_t c = 0; c < n; ++c) checks_.push_back({f, c});
      state_[f].loaded = true;
      work_cv_.notify_all();
      done_cv_.notify_all();
    }
  }

  // Loads one file, keeping only the cases of this shard.
  FileState load(std::size_t f) {
    FileState st;
    st.outcome.file = files_[f];
    if (opt_.shard_count && load_.format != InputFormat::HcclVmDb && load_.format != InputFormat::StLog &&
        detect_format(files_[f], false) == InputFormat::Jsonl &&
        !in_shard(files_[f], opt_.shard_index, opt_.shard_count)) {
      return st;  // a single-operator trace of another shard: not even read
    }
    auto t0 = Clock::now();
    Result<std::vector<LoadedCase>> cases = load_file(files_[f], load_, expand_);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!cases) {
      st.outcome.error = InputError{files_[f], cases.error().message, static_cast<u32>(f)};
      return st;
    }
    for (std::size_t i = 0; i < cases.value().size(); ++i) {
      LoadedCase& c = cases.value()[i];
      if (opt_.shard_count && !in_shard(c.name, opt_.shard_index, opt_.shard_count)) continue;
      c.read_ms = ms / static_cast<double>(cases.value().size());
      // The cases of one file may all be checked at once, one per job.
      c.threads = cases.value().size() > 1 ? operator_threads(opt_.threads, opt_.jobs, opt_.jobs) : load_.threads;
      st.cases.push_back(std::move(c));
      st.index.push_back(static_cast<u32>(i));
    }
    st.done.resize(st.cases.size());
    st.pending = st.cases.size();
    return st;
  }

  // At most five times a second, and only ever on standard error.
  void draw_progress() {
    if (!line_.due()) return;
    double s = std::chrono::duration<double>(Clock::now() - start_).count();
    std::string line = fmt::format("collcheck: {}/{} inputs, {} operators, {:.3g} tasks/s", files_done_,
                                   files_.size(), cases_done_, s > 0 ? tasks_done_ / s : 0.0);
    if (files_done_ > 0 && files_done_ < files_.size()) {
      double eta = s / files_done_ * (files_.size() - files_done_);
      line += ", ETA " + progress_duration(eta);
    }
    line_.draw(line);
  }

  void clear_progress() { line_.clear(); }

  const std::vector<std::string>& files_;
  const InputOptions& load_;
  const ExpandOptions& expand_;
  const BatchOptions& opt_;
  const CaseChecker& check_;
  std::vector<FileState> state_;
  std::deque<std::size_t> loads_;
  std::deque<std::pair<std::size_t, std::size_t>> checks_;
  std::mutex m_;
  std::condition_variable work_cv_, done_cv_;
  bool stop_ = false;
  std::size_t files_done_ = 0, cases_done_ = 0;
  u64 tasks_done_ = 0;
  Clock::time_point start_;
  ProgressLine line_;
};

}  // namespace

unsigned operator_threads(unsigned threads, unsigned jobs, std::size_t inputs) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::size_t at_once = std::clamp<std::size_t>(inputs, 1, std::max(1u, jobs));
  return std::max<unsigned>(1, static_cast<unsigned>(threads / at_once));
}

void run_batch(const std::vector<std::string>& files, const InputOptions& load, const ExpandOptions& expand,
               const BatchOptions& options, const CaseChecker& check, const OutcomeSink& emit) {
  InputOptions each = load;
  each.threads = operator_threads(options.threads, options.jobs, files.size());
  Pool(files, each, expand, options, check).run(emit);
}

}  // namespace cc
