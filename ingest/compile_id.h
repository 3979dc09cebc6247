// Dynamo compile ids: `F/C`, `F/C_A`, `!CA`, `!CA/F/C` (torch/_guards.py).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rcf::ingest {

struct CompileId {
  int32_t compiled_autograd = -1;  // -1 when not a compiled-autograd compile
  int32_t frame = -1;              // -1 when unknown / absent
  int32_t compile = -1;
  int32_t attempt = 0;

  bool known() const { return frame >= 0 || compiled_autograd >= 0; }
  // Text form as the runtime prints it: "0/1", "0/0_1", "!0/1/0", "!3". Empty when !known().
  std::string text() const;
  // Same without the attempt suffix: identifies the compile across its restarts.
  std::string text_without_attempt() const;
  // Parses the text form; nullopt when `s` is not a compile id.
  static std::optional<CompileId> parse(std::string_view s);
  // Whether `s` is text(): the form the id is kept as, parsed (a run's guard failures are
  // checked at every batch of a watch: no text is made for it).
  bool is_text(std::string_view s) const;
  friend bool operator==(const CompileId&, const CompileId&) = default;
};

}  // namespace rcf::ingest
