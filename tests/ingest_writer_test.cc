// IngestWriter: the end of the sources' load (finish_sources) frees the writer thread and its
// caches before the analysis, and leaves the transaction to commit what was written.
#include "store/ingest_writer.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "ingest/events.h"
#include "ingest/source_stats.h"
#include "store/store.h"
#include "tests/support/temp_files.h"

namespace rcf::store {
namespace ingest_writer_test {

int64_t count(Database& db, const char* sql) {
  auto st = db.prepare(sql);
  EXPECT_TRUE(st.step());
  return st.int64(0);
}

TEST(IngestWriter, WhatWasWrittenBeforeFinishingTheSourcesIsCommitted) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  {
    IngestWriter writer(*db, "host-a");
    const int64_t run = writer.run_id("lane", "cold");
    ingest::EventSink& sink = writer.begin_source(run);
    for (int c = 0; c < 3; ++c) {
      ingest::DynamoCompile compile;
      compile.line = 10 * (c + 1);
      compile.ref.id.frame = 0;
      compile.ref.id.compile = c;
      compile.kind = "forward";
      compile.co_name = "step";
      compile.co_filename = "train.py";
      sink.emit(std::move(compile));
    }
    ingest::SourceStats stats;
    stats.path = "train.log";
    stats.format = "dynamo_text";
    stats.content_hash = "xxh64:0123456789abcdef:30";
    stats.lines = 30;
    EXPECT_FALSE(writer.end_source(stats));
    writer.finish_sources();
    // No source may start once the writer thread is gone; the transaction is still open.
    EXPECT_THROW(writer.begin_source(run), std::logic_error);
    writer.commit();
  }
  EXPECT_EQ(count(*db, "SELECT count(*) FROM source WHERE host = 'host-a'"), 1);
  EXPECT_EQ(count(*db, "SELECT count(*) FROM dynamo_compile_raw"), 3);
  EXPECT_EQ(count(*db, "SELECT max(line) FROM dynamo_compile_raw"), 30);
}

}  // namespace ingest_writer_test
}  // namespace rcf::store
