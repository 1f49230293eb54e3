// The subcommands. Each returns the process exit status (0, 1 or 2).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/msccl_options.h"
#include "io/input.h"
#include "model/result.h"
#include "pipeline/pipeline.h"

namespace cc {

// Adds a subcommand to `app`; the returned callback runs it after parsing.
using CommandRun = std::function<int()>;

CommandRun add_check_command(CLI::App& app);
CommandRun add_stats_command(CLI::App& app);
CommandRun add_dot_command(CLI::App& app);
CommandRun add_merge_command(CLI::App& app);
CommandRun add_gen_command(CLI::App& app);
CommandRun add_mutate_command(CLI::App& app);
CommandRun add_convert_command(CLI::App& app);
CommandRun add_ccu_dis_command(CLI::App& app);
CommandRun add_explain_command(CLI::App& app);

// "collcheck: error: <message>" on standard error.
void print_error(const std::string& message);

// What a parse error of CLI11 says, in our words: the unknown subcommand or
// option with the closest known one, or CLI11's text behind the subcommand.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv);
// A numeric option's check: a whole number from `lo` to `hi`, else
// "--opt: X is not a whole number from LO to HI".
CLI::Validator whole_number(u64 lo, u64 hi);

// Writes `data` to `path` ("-": standard output); "" on success, else
// "cannot write PATH: why". With `make_dirs`, missing directories of `path`
// are created first (convert's outputs).
std::string write_output(const std::string& path, std::string_view data, bool make_dirs = false);

// How inputs are read (--format, --op, --case, the HCCL VM flags, the
// --msccl-* options): shared by `check` and `convert`.
struct InputArgs {
  std::string format, op, case_glob;
  bool keep_stream_ids = false, recorded_peers = false;
  std::string aiv_dir;
  unsigned threads = 0;  // --threads; 0: every core
  MscclArgs msccl;
};
void add_input_options(CLI::App* c, InputArgs& a);
// False, after printing the error, for an unknown --format or an unusable
// --msccl-* value. The MSCCL options go to `expand`, which maps programs.
bool load_options(const InputArgs& a, InputOptions& out, ExpandOptions& expand);

// The options of a long run, shared by `check` and `mutate`: the progress
// line (--progress, --no-progress) and the memory limit (--max-memory).
struct LongRunArgs {
  bool progress = false, no_progress = false;
  std::string max_memory;
};
void add_long_run_options(CLI::App* c, LongRunArgs& a);
// Whether to draw the progress line: when asked, never when refused, else
// when standard error is a terminal.
bool progress_wanted(const LongRunArgs& a);
// Starts the --max-memory guard when the option is given; false, after
// printing the error, for a size that does not parse.
bool start_memory_limit(const LongRunArgs& a);

// The one input of a tool (stats, dot, ccu-dis), read and, when `expand`,
// expanded: --format (a name, "" to detect) and --case select.
Result<std::vector<LoadedCase>> load_tool_input(const std::string& input, const std::string& format,
                                                const std::string& case_glob, bool expand = true);

}  // namespace cc
