// When a source is already in the store: the one rule `rcf ingest` (store/ingest_writer.cc) and
// `rcf merge` (store/merge_stores.cc) apply before adding a source.
#pragma once

namespace rcf::store {

// Binds ?1 content_hash, ?2 file_rank (or NULL), ?3 the run the source goes to (-1 when that run
// does not exist yet), ?4 its path; yields the earlier source's path, lane and run. The same
// bytes under two ranks' names are two ranks. In its own run the same content is the same file,
// whatever its name or compression; in another run only the same path is: two runs of a
// deterministic script write the same bytes (a cold and a warm capture; PT_XLA_DEBUG and
// progress lines carry no pid or time), and each is its run's own evidence.
inline constexpr const char* kDuplicateSourceSql =
    "SELECT s.path, r.lane, r.run FROM source s JOIN run_table r USING (run_id) "
    "WHERE s.content_hash=?1 AND (s.file_rank IS ?2 OR s.file_rank IS NULL OR "
    "?2 IS NULL) AND (s.run_id = ?3 OR s.path = ?4) ORDER BY s.source_id LIMIT 1";

}  // namespace rcf::store
