// One torch_xla process seen through several logs (docs/pt_xla_debug.md, "One process, several
// logs"). PT_XLA_DEBUG writes one stream per process, to stdout or to PT_XLA_DEBUG_FILE, and
// names no pid, rank or host. Each source with Compilation Analysis blocks is therefore read as
// its own process (its own program cache), unless it is a copy of another: the same console
// saved twice (a `tee` file and a launcher's log, a re-framed or re-encoded copy). The evidence
// for a copy is the whole sequence of compile records (graph hash, cause and frames, in order)
// being the same. Ranks of a data-parallel job compile the same graphs in the same order too, so
// a name that tells the processes apart (a file rank, or paths that differ only in a number:
// rank0/rank1, host-3/host-4) keeps them apart; without one the copy is read once and the
// evidence says that it was assumed and what would decide it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/source_alias.h"
#include "analysis/xla_compiles.h"

namespace rcf::analysis {

// What names a source's process, read from the store.
struct XlaSourceName {
  std::string path;                  // as ingested
  std::optional<int64_t> file_rank;  // source.file_rank
};

// Copies among the sources of `blocks` (in (source_id, line) order): each alias names the source
// whose records it repeats (the lowest source id of the group).
std::vector<SourceAlias> find_copied_xla_sources(const std::vector<XlaBlockRecord>& blocks,
                                                 const std::map<int64_t, XlaSourceName>& names);

// Removes the blocks of every aliased source.
void drop_aliased_blocks(std::vector<XlaBlockRecord>& blocks,
                         const std::vector<SourceAlias>& aliases);

// True when two paths differ only in their numbers (`rank0.log` / `rank1.log`): the numbered
// files of one job's processes.
bool numbered_apart(const std::string& a, const std::string& b);

}  // namespace rcf::analysis
