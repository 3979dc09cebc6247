// A run's compiles with their attribution, as plain rows, for `rcf explain` (compiles and
// recompiles per site) and the report (every recompile per site with its evidence).
//
// The scans read the internal compile_event and attribution tables, not the compiles and
// recompiles views: they give the site and the subject as string ids, so that a run of a million
// compiles at a hundred thousand sites reads each site's text once (StringTexts) instead of once
// per compile, and the report picks the recompiles it lists by compile_row before it reads their
// texts. Single rows are read from the views.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/database.h"

namespace rcf::store {

// One compile of a run (compile_event + attribution), as explain counts it. `cause` is valid
// during the callback only.
struct CompileCauseRow {
  int64_t ordinal = 0;
  int64_t site_sid = 0;
  bool failed = false;  // kind = 'dynamo_failed'
  std::optional<double> compile_ms;
  std::string_view cause;  // first_compile or a cause of the vocabulary
  std::optional<int64_t> subject_sid;
};

// Calls `visit` with every compile of the run, by ordinal.
void for_each_compile(Database& db, int64_t run_id,
                      const std::function<void(const CompileCauseRow&)>& visit);

// One recompile of a run, as the report scans them to pick the ones it lists. `cause` is valid
// during the callback only.
struct RecompileScanRow {
  int64_t compile_row = 0;
  int64_t site_sid = 0;
  std::optional<int64_t> step;
  std::string_view cause;
};

// Calls `visit` with every compile of the run whose cause is not first_compile, by ordinal. Each
// scan reads only the columns its caller uses: a million rows make every column count.
void for_each_recompile(Database& db, int64_t run_id,
                        const std::function<void(const RecompileScanRow&)>& visit);

// Texts of string ids (sites, subjects), one statement for many lookups.
class StringTexts {
 public:
  explicit StringTexts(Database& db);
  // "" when the id is unknown.
  std::string text(int64_t string_id);

 private:
  Statement lookup_;
};

// The texts of `ids` by id, in one query.
std::unordered_map<int64_t, std::string> string_texts(Database& db,
                                                      const std::vector<int64_t>& ids);

// The texts of one recompile (the recompiles view).
struct RecompileTexts {
  std::string program_key, confidence, detail, prev_program_key, evidence;
};

// Reads recompiles by ordinal, one statement for many lookups.
class RecompileTextReader {
 public:
  explicit RecompileTextReader(Database& db);
  // nullopt when the run has no recompile with that ordinal.
  std::optional<RecompileTexts> at(int64_t run_id, int64_t ordinal);

 private:
  Statement lookup_;
};

// A recompile with everything the report shows of it.
struct RecompileRow {
  int64_t ordinal = 0;
  std::optional<int64_t> step;
  std::string program_key;
  std::string prev_program_key;  // "" when none
  bool has_prev = false;         // prev_program_key is known (not NULL)
  std::string cause, confidence, detail, evidence;
  std::optional<double> compile_ms;
  std::string guard_text;  // the primary raw reason (Dynamo: the guard failure), verbatim
  int64_t other_reasons = 0;
  std::optional<int64_t> hlo_module_id;
};

// The recompiles of `compile_rows` (from for_each_recompile) by compile_row.
std::unordered_map<int64_t, RecompileRow> recompiles_by_row(
    Database& db, const std::vector<int64_t>& compile_rows);

// The first compile of the run that raised (kind dynamo_failed), from the compiles view.
struct FailedCompileRow {
  int64_t ordinal = 0;
  std::optional<int64_t> step;
  std::string program_key, site, reason;  // reason: cause_reported (the fail type)
};

std::optional<FailedCompileRow> first_failed_compile(Database& db, int64_t run_id);

}  // namespace rcf::store
