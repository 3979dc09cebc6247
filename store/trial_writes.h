// Writes made to be looked at and then undone, inside a transaction that goes on: rcf watch's
// look at a batch's logs as if they ended, before the batch's own analysis (docs/watch.md, "A
// batch after a quiet spell looks at the logs' ends first"). A savepoint, begun when this is
// made and always rolled back when it is destroyed; what the transaction held before it stays.
#pragma once

#include "store/database.h"

namespace rcf::store {

class TrialWrites {
 public:
  // Throws rcf::Error when `db` has no transaction open (there would be nothing to go on with).
  explicit TrialWrites(Database& db);
  // Undoes every write since construction. A failure is not thrown (a destructor may run while
  // an error unwinds): SQLite rolls back the whole transaction on some errors, and its commit
  // then fails, which the caller sees.
  ~TrialWrites();
  TrialWrites(const TrialWrites&) = delete;
  TrialWrites& operator=(const TrialWrites&) = delete;

 private:
  Database& db_;
};

}  // namespace rcf::store
