#include "store/execute_time_query.h"

#include <fmt/format.h>

#include "store/store.h"

namespace rcf::store {

std::optional<double> last_execute_ms(Database& db, int64_t run_id) {
  // The IN term repeats the WHERE of the metric_fields index (store/store.h), so it is used.
  auto st = db.prepare(fmt::format(
      "SELECT value FROM metric_sample m JOIN strings n ON n.string_id = m.name_sid WHERE "
      "run_id=? AND n.text='ExecuteTime' AND {} AND field='Accumulator' ORDER BY source_id DESC, "
      "line DESC LIMIT 1",
      kMetricFieldsTerm));
  st.bind(1, run_id);
  if (st.step()) return st.real(0) / 1e6;
  return std::nullopt;
}

}  // namespace rcf::store
