#include "store/delete_source.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace rcf::store {

void delete_source_rows(Database& db, int64_t source_id) {
  // HLO parameters, constants and instructions hang off their module, not the source.
  for (const char* child : {"hlo_parameter", "hlo_constant", "hlo_instruction_text"}) {
    auto del = db.prepare(fmt::format(
        "DELETE FROM {} WHERE hlo_module_id IN (SELECT hlo_module_id FROM hlo_module WHERE "
        "source_id=?)",
        child));
    del.bind(1, source_id).run();
  }
  // Every other table with a source_id column, so that a new raw table is never forgotten;
  // compile_event is derived: the analysis of the run rebuilds it with its attributions.
  std::vector<std::string> tables;
  auto list = db.prepare(
      "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p "
      "WHERE m.type='table' AND p.name='source_id' AND m.name <> 'compile_event' ORDER BY 1");
  while (list.step()) tables.push_back(list.str(0));
  for (const auto& table : tables) {
    auto del = db.prepare(fmt::format("DELETE FROM \"{}\" WHERE source_id=?", table));
    del.bind(1, source_id).run();
  }
}

}  // namespace rcf::store
