// The instructions of an HLO module as one text (the store keeps it in hlo_instruction_text), so
// that analysis compares two programs' op attributes from the store alone, never from the input
// files (which may have moved, or been read from standard input).
//
// Encoding, one line per instruction in printed order, fields separated by tabs:
//   ordinal, name, opcode, shape, shown_shape, operands (ordinals joined by ','), op_name,
//   source_file, source_line, then four fields per attribute: key, calls ('1' or '0'),
//   canonical, shown.
// A shown text equal to its canonical text is written empty. '\\', tab, '\n' and '\r' inside a
// field are written as "\\\\", "\\t", "\\n", "\\r".
//
// The HLO parser writes this text as it reads each instruction (HloInstructionEncoder): holding
// every instruction as a record of strings first, and encoding it again on the writer thread, was
// a fifth of a dump's ingest (allocations, copies, the second pass).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/xla_events.h"

namespace rcf::ingest {

// Appends instructions to one encoded text, a field at a time, in the order the parser meets
// them: begin, any operands, attributes and metadata in any order, end. Reused for every module
// (take() leaves it empty), so its scratch keeps its capacity.
class HloInstructionEncoder {
 public:
  void begin(int32_t ordinal, std::string_view name, std::string_view opcode,
             std::string_view shape, std::string_view shown_shape);
  void operand(int32_t ordinal);
  void attribute(std::string_view key, bool calls, std::string_view canonical,
                 std::string_view shown);
  // The instruction's metadata; a later call replaces an earlier one.
  void metadata(std::string_view op_name, std::string_view source_file, int64_t source_line);
  void end();
  // The lines encoded so far; the encoder is empty afterwards.
  std::string take();

 private:
  std::string out_;
  std::string attributes_;  // this instruction's attribute fields, placed after its metadata
  std::string op_name_, source_file_;
  int64_t source_line_ = -1;
  bool first_operand_ = true;
};

std::string encode_hlo_instructions(const std::vector<HloInstructionText>& instructions);

// nullopt when `text` is not an encoding written by HloInstructionEncoder.
std::optional<std::vector<HloInstructionText>> decode_hlo_instructions(std::string_view text);

}  // namespace rcf::ingest
