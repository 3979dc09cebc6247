// The bytes of an empty store, made at build time by tools/make_empty_store_image.cc from the
// schema code (write_schema) and compiled into rcf: a new store is these bytes written to a file,
// instead of about 90 CREATE statements that SQLite parses three times each (docs/performance.md,
// "Small logs"). Only the runs of non-zero bytes are kept: an empty store is 84 pages of 16 KiB,
// each nearly all zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rcf::store {

// One run of non-zero bytes of the file: `size` bytes at `offset`, taken from StoreImage::bytes.
struct StoreImageRun {
  uint32_t offset;
  uint32_t size;
};

struct StoreImage {
  uint64_t file_size = 0;         // the file is this long; bytes outside the runs are zero
  int schema_version = 0;         // kSchemaVersion of the code that wrote it
  uint64_t schema_text_hash = 0;  // schema_text_hash() of that code
  const StoreImageRun* runs = nullptr;
  size_t run_count = 0;
  const unsigned char* bytes = nullptr;  // the runs' bytes, one after the other
};

// A hash (FNV-1a over words) of the statements write_schema runs (kSchemaSql and
// index_statements()): an image made from other statements is not used.
uint64_t schema_text_hash();

// True when `image` holds a store of this rcf's schema (same version, same schema text).
bool image_fits_this_schema(const StoreImage& image);

// Copies the runs of `image` to where they lie in `file`, which holds image.file_size bytes of
// zeros (a new store built in memory starts as it).
void copy_store_image(const StoreImage& image, char* file);

// Creates the file `path` (it must not exist) holding `header` and then `rest`, and syncs its
// data. Long runs of zeros are left as holes, as write_store_image leaves them. Throws
// rcf::Error, leaving no file.
void write_synced_store_file(const std::string& path, std::string_view header,
                             std::string_view rest);

// Creates the file `path` (it must not exist) holding `image`, with the permissions SQLite gives
// a database it creates. The runs are written where they lie; the zeros between them are holes.
// Not synced: the caller syncs the store once it is complete. Throws rcf::Error, leaving no file.
void write_store_image(const StoreImage& image, const std::string& path);

}  // namespace rcf::store
