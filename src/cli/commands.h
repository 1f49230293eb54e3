// The subcommands. Each returns the process exit status (0, 1 or 2).
#pragma once

#include <CLI/CLI.hpp>

namespace cc {

// Adds a subcommand to `app`; the returned callback runs it after parsing.
using CommandRun = std::function<int()>;

CommandRun add_check_command(CLI::App& app);
CommandRun add_stats_command(CLI::App& app);
CommandRun add_dot_command(CLI::App& app);
CommandRun add_merge_command(CLI::App& app);
CommandRun add_gen_command(CLI::App& app);
CommandRun add_mutate_command(CLI::App& app);

// "collcheck: error: <message>" on standard error.
void print_error(const std::string& message);

}  // namespace cc
