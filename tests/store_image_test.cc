// The build's image of an empty store (pipeline/empty_store_image.h, store/store_image.h): a new
// store that starts from it has exactly the schema, settings and bookkeeping rows that the schema
// statements make, so the image cannot drift from the schema code; an image that does not fit
// this schema, or that SQLite cannot read, is not used.
#include "store/store_image.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/empty_store_image.h"
#include "store/database.h"
#include "store/new_store.h"
#include "store/schema.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_in_temp_dir.h"

namespace rcf {
namespace store_image_test {

namespace fs = std::filesystem;
using pipeline::kEmptyStoreImage;
using testing::query_csv;
using testing::scalar;

// Everything of a store that its schema statements decide, as text.
std::string schema_of(const std::string& path) {
  store::Database db(path, store::Database::Mode::kReadOnly);
  std::string out = query_csv(db, "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master");
  for (const char* pragma :
       {"page_size", "encoding", "auto_vacuum", "application_id", "user_version", "schema_version",
        "journal_mode", "page_count", "freelist_count", "integrity_check"})
    out += fmt::format("{}={}\n", pragma, scalar(db, fmt::format("PRAGMA {}", pragma)));
  out += query_csv(db, "SELECT * FROM schema_info ORDER BY key");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) out += fmt::format("mode={:o}\n", st.st_mode);
  return out;
}

class StoreImage : public testing::RcfInTempDir {
 protected:
  // Creates `name` as an ingest does, from `image` (nullptr: by the schema statements), with no
  // rows, and returns its schema.
  std::string created(const std::string& name, const store::StoreImage* image,
                      bool in_memory = false) {
    auto fresh = store::NewStore::create(path(name), image, in_memory);
    EXPECT_NE(fresh, nullptr);
    if (!fresh) return "";
    fresh->db().exec("COMMIT");
    EXPECT_TRUE(fresh->publish());
    return schema_of(path(name));
  }
  // The temporary files of NewStores in the test's directory, with their sizes.
  std::vector<std::uintmax_t> temp_file_sizes() const {
    std::vector<std::uintmax_t> sizes;
    for (const auto& entry : fs::directory_iterator(tmp_.path()))
      if (store::is_new_store_temp_file(entry.path().string()))
        sizes.push_back(fs::file_size(entry.path()));
    return sizes;
  }
};

TEST_F(StoreImage, TheBuildsImageFitsThisSchema) {
  EXPECT_TRUE(store::image_fits_this_schema(kEmptyStoreImage));
  EXPECT_EQ(kEmptyStoreImage.schema_version, store::kSchemaVersion);
  EXPECT_EQ(kEmptyStoreImage.file_size % store::kPageSize, 0u);
  // Only the non-zero runs are kept: far fewer bytes than the file.
  uint64_t kept = 0;
  for (size_t i = 0; i < kEmptyStoreImage.run_count; ++i) kept += kEmptyStoreImage.runs[i].size;
  EXPECT_LT(kept, kEmptyStoreImage.file_size / 4);
}

TEST_F(StoreImage, AStoreFromTheImageHasTheSchemaTheStatementsMake) {
  const std::string from_statements = created("statements.db", nullptr);
  const std::string from_image = created("image.db", &kEmptyStoreImage);
  EXPECT_NE(from_statements.find("CREATE TABLE schema_info"), std::string::npos);
  EXPECT_NE(from_statements.find("page_size=16384"), std::string::npos);
  EXPECT_NE(from_statements.find("journal_mode=wal"), std::string::npos);
  EXPECT_NE(from_statements.find(fmt::format("schema_version,{}", store::kSchemaVersion)),
            std::string::npos);
  EXPECT_EQ(from_image, from_statements);
  // And open_store takes it as it takes any store of this rcf (schema_check.h).
  EXPECT_NO_THROW(store::open_store(path("image.db"), store::OpenMode::kRead));
}

// The image is on disk as soon as the store is created (the statements' pages would still be in
// SQLite's cache, uncommitted), and the load writes into it.
TEST_F(StoreImage, ANewStoreStartsAsTheImage) {
  auto fresh = store::NewStore::create(path("fresh.db"), &kEmptyStoreImage);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(temp_file_sizes(), std::vector<std::uintmax_t>{kEmptyStoreImage.file_size});
  fresh->db().exec("INSERT INTO strings(text) VALUES ('a row')");
  fresh->db().exec("COMMIT");
  ASSERT_TRUE(fresh->publish());
  store::Database db(path("fresh.db"), store::Database::Mode::kReadOnly);
  EXPECT_EQ(scalar(db, "SELECT text FROM strings"), "a row");
}

// An image of another schema, or bytes SQLite cannot read, leaves the statements to make the store.
TEST_F(StoreImage, AnImageThatDoesNotFitIsNotUsed) {
  const std::string expected = created("statements.db", nullptr);

  store::StoreImage other_version = kEmptyStoreImage;
  other_version.schema_version = store::kSchemaVersion + 1;
  EXPECT_FALSE(store::image_fits_this_schema(other_version));
  EXPECT_EQ(created("other_version.db", &other_version), expected);

  store::StoreImage other_text = kEmptyStoreImage;
  other_text.schema_text_hash ^= 1;
  EXPECT_FALSE(store::image_fits_this_schema(other_text));
  EXPECT_EQ(created("other_text.db", &other_text), expected);

  // Fits by its fields, but its first page is not SQLite's: SQLite reads the file as
  // "not a database", and the store is made by the statements after all.
  std::vector<unsigned char> bytes(kEmptyStoreImage.bytes,
                                   kEmptyStoreImage.bytes + kEmptyStoreImage.runs[0].size);
  ASSERT_EQ(kEmptyStoreImage.runs[0].offset, 0u);
  std::fill(bytes.begin(), bytes.begin() + 16, 'x');
  store::StoreImage damaged = kEmptyStoreImage;
  damaged.run_count = 1;
  damaged.bytes = bytes.data();
  EXPECT_TRUE(store::image_fits_this_schema(damaged));
  EXPECT_EQ(created("damaged.db", &damaged), expected);

  store::StoreImage empty;
  EXPECT_FALSE(store::image_fits_this_schema(empty));
  EXPECT_EQ(created("empty.db", &empty), expected);

  // Asked to build in memory, the same: the file is made from the statements.
  EXPECT_EQ(created("damaged_in_memory.db", &damaged, /*in_memory=*/true), expected);
  EXPECT_EQ(created("other_version_in_memory.db", &other_version, true), expected);
}

// A store built in memory (a few MB of logs) is written only when it is published, and is then
// the store built on its file: the same schema and settings (WAL mode, the page size), the same
// rows, also when the rows outgrow the image and SQLite grows the memory.
TEST_F(StoreImage, AStoreBuiltInMemoryIsTheStoreBuiltOnItsFile) {
  EXPECT_EQ(created("in_memory.db", &kEmptyStoreImage, /*in_memory=*/true),
            created("on_file.db", &kEmptyStoreImage));
  const std::string fill =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
      "INSERT INTO strings(text) SELECT printf('%d %.*c', i, 200, 'x') FROM n";
  for (bool in_memory : {true, false}) {
    const std::string name = in_memory ? "rows_in_memory.db" : "rows_on_file.db";
    auto fresh = store::NewStore::create(path(name), &kEmptyStoreImage, in_memory);
    ASSERT_NE(fresh, nullptr);
    EXPECT_EQ(temp_file_sizes().size(), in_memory ? 0u : 1u) << name;
    fresh->db().exec(fill);
    fresh->db().exec("COMMIT");
    ASSERT_TRUE(fresh->publish());
    EXPECT_TRUE(temp_file_sizes().empty());
  }
  EXPECT_GT(fs::file_size(path("rows_in_memory.db")), 2 * kEmptyStoreImage.file_size);
  EXPECT_EQ(schema_of(path("rows_in_memory.db")), schema_of(path("rows_on_file.db")));
  store::Database in_memory(path("rows_in_memory.db"), store::Database::Mode::kReadOnly);
  store::Database on_file(path("rows_on_file.db"), store::Database::Mode::kReadOnly);
  EXPECT_EQ(testing::dump_tables(in_memory), testing::dump_tables(on_file));
  EXPECT_EQ(scalar(in_memory, "SELECT count(*) FROM strings WHERE length(text) > 200"), "20000");
}

}  // namespace store_image_test
}  // namespace rcf
