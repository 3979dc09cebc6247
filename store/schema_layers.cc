#include "store/schema_layers.h"

#include <stdexcept>
#include <string_view>

#include "store/schema.h"

namespace rcf::store {
namespace {

constexpr std::string_view kDerivedHeading = "\n-- Derived tables";
constexpr std::string_view kCreateTable = "\nCREATE TABLE ";

std::vector<std::string> tables_before_derived() {
  const std::string_view schema = kSchemaSql;
  const size_t derived = schema.find(kDerivedHeading);
  // A renamed heading would make every table raw: a bug in rcf, not bad input.
  if (derived == std::string_view::npos)
    throw std::logic_error("sql/schema.sql has no \"-- Derived tables\" heading");
  std::vector<std::string> names;
  for (size_t at = schema.find(kCreateTable); at < derived;
       at = schema.find(kCreateTable, at + 1)) {
    const size_t start = at + kCreateTable.size();
    const size_t end = schema.find_first_of(" (", start);
    names.emplace_back(schema.substr(start, end - start));
  }
  return names;
}

}  // namespace

const std::vector<std::string>& raw_tables() {
  static const std::vector<std::string> names = tables_before_derived();
  return names;
}

}  // namespace rcf::store
