#include "analysis/jax_module_links.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace rcf::analysis {

std::string jax_module_name(const std::string& function) {
  std::string name = "jit_" + function;
  for (size_t i = 4; i < name.size(); ++i) {
    char c = name[i];
    bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '-';
    if (!kept) name[i] = '_';
  }
  return name;
}

JaxModuleLinks::JaxModuleLinks(const std::vector<HloModuleRecord>& modules,
                               const std::map<std::string, size_t>& compiles_per_function)
    : compiles_(compiles_per_function) {
  // Only dump files carry a module id; before-optimisation modules are what JAX submitted.
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> by_name;  // name -> (id, row)
  for (const auto& m : modules)
    if (m.module_id && m.stage == "before_optimizations" && m.graph_hash.empty())
      by_name[m.module_name].emplace_back(*m.module_id, m.hlo_module_id);
  for (auto& [name, ids] : by_name) {
    std::sort(ids.begin(), ids.end());
    auto& out = modules_by_name_[name];
    for (const auto& id : ids) out.push_back(id.second);
  }
}

std::optional<int64_t> JaxModuleLinks::module_of(const std::string& function, size_t n) const {
  auto m = modules_by_name_.find(jax_module_name(function));
  auto c = compiles_.find(function);
  if (m == modules_by_name_.end() || c == compiles_.end() || m->second.size() != c->second ||
      n >= m->second.size())
    return std::nullopt;
  return m->second[n];
}

std::string JaxModuleLinks::why_not_linked(const std::string& function) const {
  auto m = modules_by_name_.find(jax_module_name(function));
  if (m == modules_by_name_.end()) return "";
  auto c = compiles_.find(function);
  size_t compiles = c == compiles_.end() ? 0 : c->second;
  if (m->second.size() == compiles) return "";
  return fmt::format(
      "the dump holds {} {} module(s) for {} compile(s) in the log (a persistent-cache hit "
      "compiles nothing; a filtered or cut dump holds fewer), so they are not joined",
      m->second.size(), jax_module_name(function), compiles);
}

}  // namespace rcf::analysis
