// collcheck: a static verifier for collective-communication operators.
#include <cstdio>
#include <vector>

#include "cli/commands.h"
#include "collcheck_version.h"

#if COLLCHECK_JEMALLOC
// jemalloc reads this when it starts (before MALLOC_CONF, which still
// overrides it). A check of 10^7 tasks walks arrays of hundreds of MB in
// the graph's order: with 4 KiB pages, page faults and TLB misses took a
// third of its time; huge pages (2 MiB, where the system allows them)
// roughly halve the whole check (docs/PERFORMANCE.md). One arena, and no
// huge pages for jemalloc's own metadata: each arena's partly used huge
// pages cost memory (at 6.5·10^5 tasks, 121 MiB with the default arenas
// against 109 MiB), and the threads allocate little once running.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:disabled,narenas:1";
}
#endif

int main(int argc, char** argv) {
  CLI::App app{"collcheck: verify collective-communication operators from their records"};
  app.set_version_flag("--version", std::string("collcheck ") + cc::kCollcheckVersion + "\nlinked: " + cc::kCollcheckLinkage);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, cc::CommandRun>> commands;
  auto add = [&](cc::CommandRun (*f)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    cc::CommandRun run = f(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(run));
  };
  add(cc::add_check_command);
  add(cc::add_stats_command);
  add(cc::add_dot_command);
  add(cc::add_merge_command);
  add(cc::add_gen_command);
  add(cc::add_mutate_command);
  add(cc::add_convert_command);
  add(cc::add_ccu_dis_command);
  add(cc::add_explain_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Every error, the parser's too: "collcheck: error: ..." and status 2.
    cc::print_error(cc::parse_error_message(app, e, argc, argv));
    std::fputs("Run with --help for more information.\n", stderr);
    return 2;
  }
  for (auto& [sub, run] : commands)
    if (sub->parsed()) return run();
  return 2;
}
