#include "store/run_bundle.h"

#include "util/json_depth.h"

namespace rcf::store {
namespace {

void write_run_bundle(Database& db, int64_t run_id, const nlohmann::json& bundle) {
  auto st = db.prepare("UPDATE run_table SET bundle = ? WHERE run_id = ?");
  if (bundle.empty())
    st.bind_null(1);
  else  // log text may hold invalid UTF-8: replaced, so that the column stays valid JSON
    st.bind(1, bundle.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  st.bind(2, run_id);
  st.run();
}

}  // namespace

nlohmann::json read_run_bundle(Database& db, int64_t run_id) {
  auto st = db.prepare("SELECT bundle FROM run_table WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step() || st.is_null(0)) return nlohmann::json::object();
  auto j = util::parse_json_bounded(st.text(0));
  return j.is_object() ? j : nlohmann::json::object();
}

void merge_declared_bundle(Database& db, int64_t run_id, const nlohmann::json& declared) {
  nlohmann::json bundle = read_run_bundle(db, run_id);
  for (const auto& [key, value] : declared.items()) {
    if (value.is_null())
      bundle.erase(key);
    else
      bundle[key] = value;
  }
  write_run_bundle(db, run_id, bundle);
}

void add_logged_version(Database& db, int64_t run_id, const std::string& key,
                        const std::string& value) {
  nlohmann::json bundle = read_run_bundle(db, run_id);
  if (bundle.contains(key)) return;
  bundle[key] = value;
  write_run_bundle(db, run_id, bundle);
}

std::optional<int64_t> find_run_id(Database& db, const std::string& lane, const std::string& run) {
  auto st = db.prepare("SELECT run_id FROM run_table WHERE lane = ? AND run = ?");
  st.bind(1, lane).bind(2, run);
  if (!st.step()) return std::nullopt;
  return st.int64(0);
}

}  // namespace rcf::store
