// AttributedCompile::reset: a default compile again, its strings' buffers kept.
#include "analysis/attributed_compile.h"

#include <gtest/gtest.h>

namespace rcf::analysis {
namespace attributed_compile_test {

TEST(AttributedCompile, ResetGivesADefaultCompileAndKeepsBuffers) {
  AttributedCompile c;
  c.key.frame_id = 3;
  c.key.line_if_no_id = 9;
  c.ordinal = 7;
  c.attempt = 1;
  c.line = 12;
  c.rank = 2;
  c.site = std::string(200, 's');
  c.site_number = 5;
  c.program_key = "rank2:3/1";
  c.kind = "dynamo";
  c.cause_reported = std::string(100, 'r');
  c.compile_ms = 1.5;
  c.cache = "hit";
  c.evidence_kind = "recompile_block";
  c.start_us = 10;
  c.step = 4;
  c.hlo_module_id = 8;
  c.saved_graph_source_id = 1;
  c.saved_graph_line = 2;
  c.cause = "shape";
  c.prev_program_key = "rank2:3/0";
  c.detail = std::string(300, 'd');
  c.confidence = "high";
  c.evidence = std::string(50, 'e');
  c.subject = "x";
  c.primary_reason = "why";
  c.primary_reason_sid = 6;
  c.other_reasons = 2;
  c.reset();
  EXPECT_TRUE(c == AttributedCompile());
  EXPECT_GE(c.detail.capacity(), 300u);
  EXPECT_GE(c.site.capacity(), 200u);
  EXPECT_GE(c.cause_reported.capacity(), 100u);
}

}  // namespace attributed_compile_test
}  // namespace rcf::analysis
