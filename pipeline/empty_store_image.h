// The image of an empty store that the build makes (tools/make_empty_store_image.cc, run by
// CMakeLists.txt): what an ingest into a path where no store exists starts from.
#pragma once

#include "store/store_image.h"

namespace rcf::pipeline {
extern const store::StoreImage kEmptyStoreImage;
}  // namespace rcf::pipeline
