// The run's execute time as its torch_xla metrics reports give it, which the rollup sets against
// the compile time (analysis/run_rollup.h: compile_share).
#pragma once

#include <cstdint>
#include <optional>

#include "store/database.h"

namespace rcf::store {

// The ExecuteTime accumulator of the run's last metrics report, in milliseconds; nullopt when no
// report of the run has one.
std::optional<double> last_execute_ms(Database& db, int64_t run_id);

}  // namespace rcf::store
