// load_hlo_programs keeps constants only for programs they can tell apart (same structure,
// different or unknown full fingerprint), compares values by their interned id, and loads only a
// prefix of long values: memory follows those programs, not the HLO bytes of the run.
#include "analysis/program_loader.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/program_diff.h"
#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf::analysis {
namespace program_loader_test {

using testing::TempDir;
using testing::write_file;

// One module: p0 + constant, then `op` applied; `value` is the constant's literal.
std::string module_text(const std::string& name, const std::string& op, const std::string& value) {
  return "HloModule " + name +
         ", entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n"
         "ENTRY " +
         name +
         " {\n"
         "  p0.1 = f32[8]{0} parameter(0)\n"
         "  constant.2 = f32[8]{0} constant(" +
         value +
         ")\n"
         "  ROOT out.3 = f32[8]{0} " +
         op + "(p0.1, constant.2)\n}\n";
}

class ProgramLoader : public ::testing::Test {
 protected:
  std::map<int64_t, ProgramView> load(
      const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<std::string> paths;
    for (const auto& [name, text] : files) {
      write_file(dir_.file(name), text);
      paths.push_back(dir_.file(name));
    }
    testing::ingest_logs(dir_.file("rcf.db"), paths, "hlo", "r1");
    auto db = testing::read_store(dir_.file("rcf.db"));
    auto programs = load_hlo_programs(*db, 1);
    names_.clear();
    auto st = db->prepare(
        "SELECT h.hlo_module_id, s.text FROM hlo_module h JOIN strings s ON s.string_id = "
        "h.module_name_sid");
    while (st.step()) names_[st.str(1)] = st.int64(0);
    return programs;
  }
  TempDir dir_;
  std::map<std::string, int64_t> names_;
};

constexpr const char* kFile = "module_{}.before_optimizations.txt";

std::string file_name(int i) {
  std::string f = kFile;
  return f.replace(f.find("{}"), 2, std::to_string(i));
}

TEST_F(ProgramLoader, DistinctStructuresCarryNoConstants) {
  auto programs =
      load({{file_name(1), module_text("A.1", "add", "{1, 2, 3, 4, 5, 6, 7, 8}")},
            {file_name(2), module_text("B.2", "multiply", "{1, 2, 3, 4, 5, 6, 7, 8}")}});
  ASSERT_EQ(programs.size(), 2u);
  for (const auto& [id, p] : programs) {
    EXPECT_TRUE(p.has_hlo);
    EXPECT_EQ(p.parameters.size(), 1u);
    EXPECT_TRUE(p.constants.empty()) << "module " << id;
  }
}

TEST_F(ProgramLoader, SameStructureDifferentConstantsAreDiffedByValue) {
  std::string long_a = "{" + std::string(2000, '1') + "}";
  std::string long_b = "{" + std::string(1999, '1') + "2}";  // differs only after the prefix
  auto programs =
      load({{file_name(1), module_text("A.1", "add", long_a)},
            {file_name(2), module_text("A.2", "add", long_b)},
            {file_name(3), module_text("C.3", "subtract", "{0, 0, 0, 0, 0, 0, 0, 0}")}});
  ASSERT_EQ(programs.size(), 3u);
  const ProgramView& a = programs.at(names_.at("A.1"));
  const ProgramView& b = programs.at(names_.at("A.2"));
  const ProgramView& c = programs.at(names_.at("C.3"));
  ASSERT_EQ(a.constants.size(), 1u);
  ASSERT_EQ(b.constants.size(), 1u);
  EXPECT_TRUE(c.constants.empty());
  EXPECT_LT(a.constants[0].value_text.size(), long_a.size());  // only a prefix is held
  EXPECT_EQ(a.constants[0].value_text, b.constants[0].value_text);
  EXPECT_NE(a.constants[0].value_id, b.constants[0].value_id);

  ProgramDiff d = diff_programs(a, b);
  EXPECT_EQ(d.cause, "constant");
  EXPECT_NE(d.detail.find("constant.2"), std::string::npos) << d.detail;
}

}  // namespace program_loader_test
}  // namespace rcf::analysis
