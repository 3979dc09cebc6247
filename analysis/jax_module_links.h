// Which module of an `--xla_dump_to` directory each JAX compile produced (docs/hlo_text.md,
// "JAX modules"). JAX names the module of `jax.jit(f)` `jit_<f>` (characters other than letters,
// digits, `_`, `.` and `-` become `_`), and every XLA compilation writes one module under a new,
// increasing id. So the k-th compile of `f` is the k-th `jit_<f>` module, but only when the log
// and the dump agree on how many there are: a persistent-cache hit compiles nothing, a dump
// filtered with --xla_dump_hlo_module_re or cut short holds fewer. When the counts differ the
// compiles of that function are not joined, and `why_not_linked` says so.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/xla_compiles.h"

namespace rcf::analysis {

// `jit_<function>` as JAX spells the module name.
std::string jax_module_name(const std::string& function);

class JaxModuleLinks {
 public:
  // `modules`: every stored module of the run; `compiles_per_function`: how many compiles the
  // log shows per function (the JAX attributor's own count).
  JaxModuleLinks(const std::vector<HloModuleRecord>& modules,
                 const std::map<std::string, size_t>& compiles_per_function);

  // The hlo_module id of the n-th compile (from 0) of `function`, when joined.
  std::optional<int64_t> module_of(const std::string& function, size_t n) const;

  // "" when joined or when the dump holds no module of the function; else why not.
  std::string why_not_linked(const std::string& function) const;

 private:
  std::map<std::string, std::vector<int64_t>> modules_by_name_;  // in module-id order
  std::map<std::string, size_t> compiles_;
};

}  // namespace rcf::analysis
