#include "pipeline/progress_line.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace cc {

namespace {

// A signal handler can reach only objects of static storage; this flag is
// the one piece of process-wide state the progress line keeps: whether a
// line is on the screen for the handler to erase.
volatile std::sig_atomic_t line_on_screen = 0;

extern "C" void erase_line_and_reraise(int sig) {
  if (line_on_screen) {
    static const char erase[] = "\r\033[K";
    ssize_t ignored = write(STDERR_FILENO, erase, sizeof erase - 1);
    (void)ignored;
  }
  // The default action then ends the process as the signal would have, so
  // that a shell sees "killed by SIGINT" and stops a script.
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction saved_actions[std::size(kSignals)];

void install_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction now {};
    sigaction(kSignals[i], nullptr, &saved_actions[i]);
    if (saved_actions[i].sa_handler == SIG_IGN) continue;  // nohup: keep ignoring
    now.sa_handler = erase_line_and_reraise;
    sigemptyset(&now.sa_mask);
    sigaction(kSignals[i], &now, nullptr);
  }
}

void restore_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &saved_actions[i], nullptr);
}

}  // namespace

std::string fit_progress_text(std::string_view text, unsigned columns) {
  // The last cell stays free: a character written there makes some
  // terminals wrap at once, and the line could no longer be redrawn.
  std::size_t room = columns > 1 ? columns - 1 : 1;
  if (text.size() <= room) return std::string(text);
  if (room <= 3) return std::string(text.substr(0, room));
  return std::string(text.substr(0, room - 3)) + "...";
}

unsigned progress_columns() {
  struct winsize ws {};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    unsigned long n = std::strtoul(c, &end, 10);
    if (end != c && *end == 0 && n > 0 && n < 100000) return static_cast<unsigned>(n);
  }
  return 80;
}

ProgressLine::ProgressLine(bool enabled) : enabled_(enabled) {
  if (enabled_) install_handlers();
}

ProgressLine::~ProgressLine() {
  if (!enabled_) return;
  clear();
  restore_handlers();
}

bool ProgressLine::due() const {
  return enabled_ && (!drawn_ || std::chrono::steady_clock::now() - last_ >= std::chrono::milliseconds(200));
}

void ProgressLine::draw(std::string_view text) {
  if (!enabled_) return;
  drawn_ = true;
  last_ = std::chrono::steady_clock::now();
  std::string line = "\r" + fit_progress_text(text, progress_columns()) + "\033[K";
  line_on_screen = 1;
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (!enabled_ || !line_on_screen) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  line_on_screen = 0;
}

std::string progress_duration(double seconds) {
  long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace cc
