#include "store/compile_queries.h"

#include <algorithm>

namespace rcf::store {
namespace {

std::string join_ids(const std::vector<int64_t>& ids, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) out += (i == from ? "" : ",") + std::to_string(ids[i]);
  return out;
}

}  // namespace

void for_each_compile(Database& db, int64_t run_id,
                      const std::function<void(const CompileCauseRow&)>& visit) {
  auto st = db.prepare(
      "SELECT c.site_sid, c.kind, c.compile_ms, a.cause, a.subject_sid, c.ordinal "
      "FROM compile_event c JOIN attribution a ON a.compile_row = c.compile_row "
      "WHERE c.run_id = ? ORDER BY c.ordinal");
  st.bind(1, run_id);
  CompileCauseRow row;
  while (st.step()) {
    row.site_sid = st.int64(0);
    row.failed = st.text(1) == "dynamo_failed";
    row.compile_ms = st.opt_real(2);
    row.cause = st.text(3);
    row.subject_sid = st.opt_int64(4);
    row.ordinal = st.int64(5);
    visit(row);
  }
}

void for_each_recompile(Database& db, int64_t run_id,
                        const std::function<void(const RecompileScanRow&)>& visit) {
  auto st = db.prepare(
      "SELECT c.compile_row, c.site_sid, c.step, a.cause FROM compile_event c "
      "JOIN attribution a ON a.compile_row = c.compile_row "
      "WHERE c.run_id = ? AND a.cause <> 'first_compile' ORDER BY c.ordinal");
  st.bind(1, run_id);
  RecompileScanRow row;
  while (st.step()) {
    row.compile_row = st.int64(0);
    row.site_sid = st.int64(1);
    row.step = st.opt_int64(2);
    row.cause = st.text(3);
    visit(row);
  }
}

StringTexts::StringTexts(Database& db)
    : lookup_(db.prepare("SELECT text FROM strings WHERE string_id = ?")) {}

std::string StringTexts::text(int64_t string_id) {
  lookup_.reset();
  lookup_.bind(1, string_id);
  return lookup_.step() ? lookup_.str(0) : "";
}

std::unordered_map<int64_t, std::string> string_texts(Database& db,
                                                      const std::vector<int64_t>& ids) {
  std::unordered_map<int64_t, std::string> out;
  if (ids.empty()) return out;
  auto st = db.prepare("SELECT string_id, text FROM strings WHERE string_id IN (" +
                       join_ids(ids, 0, ids.size()) + ")");
  while (st.step()) out[st.int64(0)] = st.str(1);
  return out;
}

RecompileTextReader::RecompileTextReader(Database& db)
    : lookup_(db.prepare(
          "SELECT program_key, confidence, detail, prev_program_key, evidence FROM recompiles "
          "WHERE run_id = ? AND ordinal = ?")) {}

std::optional<RecompileTexts> RecompileTextReader::at(int64_t run_id, int64_t ordinal) {
  lookup_.reset();
  lookup_.bind(1, run_id).bind(2, ordinal);
  if (!lookup_.step()) return std::nullopt;
  return RecompileTexts{lookup_.str(0), lookup_.str(1), lookup_.str(2), lookup_.str(3),
                        lookup_.str(4)};
}

std::unordered_map<int64_t, RecompileRow> recompiles_by_row(
    Database& db, const std::vector<int64_t>& compile_rows) {
  std::unordered_map<int64_t, RecompileRow> out;
  constexpr size_t kChunk = 500;  // ids per IN list
  for (size_t at = 0; at < compile_rows.size(); at += kChunk) {
    auto st = db.prepare(
        "SELECT c.compile_row, c.ordinal, c.step, c.program_key, a.prev_program_key, a.cause, "
        "a.confidence, a.detail, a.evidence, c.compile_ms, rs.text, a.other_reasons, "
        "c.hlo_module_id, a.prev_program_key IS NOT NULL FROM compile_event c "
        "JOIN attribution a ON a.compile_row = c.compile_row "
        "LEFT JOIN strings rs ON rs.string_id = a.reason_sid "
        "WHERE c.compile_row IN (" +
        join_ids(compile_rows, at, std::min(compile_rows.size(), at + kChunk)) + ")");
    while (st.step()) {
      RecompileRow r;
      r.ordinal = st.int64(1);
      r.step = st.opt_int64(2);
      r.program_key = st.str(3);
      r.prev_program_key = st.str(4);
      r.cause = st.str(5);
      r.confidence = st.str(6);
      r.detail = st.str(7);
      r.evidence = st.str(8);
      r.compile_ms = st.opt_real(9);
      r.guard_text = st.str(10);
      r.other_reasons = st.int64(11);
      r.hlo_module_id = st.opt_int64(12);
      r.has_prev = st.int64(13) != 0;
      out[st.int64(0)] = std::move(r);
    }
  }
  return out;
}

std::optional<FailedCompileRow> first_failed_compile(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT ordinal, step, program_key, site, cause_reported FROM compiles "
      "WHERE run_id = ? AND kind = 'dynamo_failed' ORDER BY ordinal LIMIT 1");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  return FailedCompileRow{st.int64(0), st.opt_int64(1), st.str(2), st.str(3), st.str(4)};
}

}  // namespace rcf::store
