// The one-line progress display on standard error: redrawn at most five
// times a second, cut to the terminal's width so that it never wraps (a
// wrapped line cannot be redrawn in place), and erased when the process is
// interrupted by Ctrl-C or a termination signal, so that the shell's prompt
// does not land on half a progress line.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace cc {

// `text` cut to fit `columns` terminal cells with the cursor kept on the
// line: at most columns - 1 characters, the last three "..." when cut.
std::string fit_progress_text(std::string_view text, unsigned columns);

// Columns of the terminal on standard error; COLUMNS from the environment
// when standard error is not a terminal; 80 when neither says.
unsigned progress_columns();

class ProgressLine {
 public:
  // A disabled line draws nothing and installs no signal handler.
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // Whether a redraw is due (the last one was 200 ms ago or more); callers
  // build the text only then.
  bool due() const;
  // Draws `text` (unless disabled), whether due or not.
  void draw(std::string_view text);
  // Erases the line, e.g. before other output goes to the terminal.
  void clear();

 private:
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

// "m:ss" (or "h:mm:ss") of `seconds`, for ETAs.
std::string progress_duration(double seconds);

}  // namespace cc
