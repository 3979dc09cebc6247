// `rcf merge OUT.db SHARD.db...`: fold the stores of several hosts (rcf ingest --host on each)
// into one and re-analyse the runs they share (pipeline/merge_pipeline.h, docs/merge.md). Exit 0
// when merged, 2 for usage and input errors (a shard of another schema version included); OUT is
// then unchanged.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "pipeline/merge_pipeline.h"

namespace rcf::cli {

Command add_merge_command(CLI::App& app) {
  auto req = std::make_shared<pipeline::MergeRequest>();
  auto* cmd = app.add_subcommand(
      "merge", "Fold the stores of several hosts (rcf ingest --host) into one (docs/merge.md)");
  cmd->footer(
      "OUT is created when missing, else it must be an rcf store; its lanes and runs stay. Runs "
      "are matched by lane and run (a run split over hosts becomes one run), a source already in "
      "OUT is skipped as a re-ingest is, and the runs that received sources are analysed again. "
      "One transaction: on any error OUT is left as it was.");
  cmd->add_option("OUT", req->out_path, "Output store")->required();
  cmd->add_option("SHARD", req->shard_paths, "Shard stores, of this rcf's schema version")
      ->required();
  return {cmd, [req]() {
            print_text(pipeline::render_merge_summary(pipeline::run_merge(*req)));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
