#include "analysis/xla_same_process.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "ingest/reading/content_hash.h"

namespace rcf::analysis {

namespace {

// A source's compile records in order, as a digest: two sources are copies when their digests
// and counts agree (memory stays one digest per source at a million blocks).
struct SourceDigest {
  ingest::ContentHash hash;
  int64_t compiles = 0;
};

void add_field(ingest::ContentHash& h, std::string_view text) {
  h.update(text.data(), text.size());
  h.update("", 1);  // the separator keeps ("ab","c") apart from ("a","bc")
}

void add_block(SourceDigest& d, const XlaBlockRecord& b) {
  add_field(d.hash, b.graph_hash);
  add_field(d.hash, b.cause_class);
  add_field(d.hash, b.cause);
  for (const FrameRecord& f : b.frames) {
    add_field(d.hash, f.file);
    d.hash.update(reinterpret_cast<const char*>(&f.line), sizeof f.line);
    add_field(d.hash, f.function);
  }
  add_field(d.hash, "\x01");  // end of the block
  ++d.compiles;
}

// The non-digit skeleton of a path, with its digit runs apart.
struct NumberedPath {
  std::string skeleton;
  std::vector<std::string> numbers;
};

NumberedPath split_numbers(const std::string& path) {
  NumberedPath out;
  for (size_t i = 0; i < path.size();) {
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) {
      out.skeleton += path[i++];
      continue;
    }
    size_t j = i;
    while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j]))) ++j;
    out.skeleton += '#';
    out.numbers.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

// Whether a name says that two sources with the same records are two processes.
bool told_apart(const XlaSourceName& a, const XlaSourceName& b) {
  if (a.file_rank && b.file_rank) return *a.file_rank != *b.file_rank;
  return numbered_apart(a.path, b.path);
}

}  // namespace

bool numbered_apart(const std::string& a, const std::string& b) {
  NumberedPath x = split_numbers(a), y = split_numbers(b);
  return x.skeleton == y.skeleton && !x.numbers.empty() && x.numbers != y.numbers;
}

std::vector<SourceAlias> find_copied_xla_sources(const std::vector<XlaBlockRecord>& blocks,
                                                 const std::map<int64_t, XlaSourceName>& names) {
  // One source (the usual run) has no copy: no digest is computed on that path.
  if (blocks.empty() || blocks.front().source_id == blocks.back().source_id) return {};
  std::map<int64_t, SourceDigest> digests;
  for (const XlaBlockRecord& b : blocks)
    if (b.origin == "pt_xla_debug") add_block(digests[b.source_id], b);
  if (digests.size() < 2) return {};
  static const XlaSourceName kNoName;
  auto name_of = [&names](int64_t id) -> const XlaSourceName& {
    auto it = names.find(id);
    return it == names.end() ? kNoName : it->second;
  };
  std::vector<SourceAlias> aliases;
  std::set<int64_t> aliased;
  for (auto first = digests.begin(); first != digests.end(); ++first) {
    if (aliased.count(first->first)) continue;
    for (auto other = std::next(first); other != digests.end(); ++other) {
      const SourceDigest &x = first->second, &y = other->second;
      if (aliased.count(other->first) || x.compiles != y.compiles ||
          x.hash.digest() != y.hash.digest())
        continue;
      const XlaSourceName &kept = name_of(first->first), &copy = name_of(other->first);
      if (told_apart(kept, copy)) continue;  // ranks doing the same work
      aliased.insert(other->first);
      SourceAlias a;
      a.source_id = static_cast<int32_t>(other->first);
      a.to_source_id = static_cast<int32_t>(first->first);
      a.evidence = fmt::format(
          "the same {} PT_XLA_DEBUG compile record{} in the same order (graph hash, cause, "
          "frames); assumed one process, as PT_XLA_DEBUG names no pid: if they are two ranks, "
          "number their file names per rank or ingest them as separate runs",
          x.compiles, x.compiles == 1 ? "" : "s");
      aliases.push_back(std::move(a));
    }
  }
  return aliases;
}

void drop_aliased_blocks(std::vector<XlaBlockRecord>& blocks,
                         const std::vector<SourceAlias>& aliases) {
  if (aliases.empty()) return;
  std::set<int64_t> dropped;
  for (const SourceAlias& a : aliases) dropped.insert(a.source_id);
  blocks.erase(std::remove_if(blocks.begin(), blocks.end(),
                              [&](const XlaBlockRecord& b) { return dropped.count(b.source_id); }),
               blocks.end());
}

}  // namespace rcf::analysis
