// The classifications of a run's guard-failure reasons (classify_guard_reason), one per reason
// text, by the text's string id, holding only what attribution reads of each. A million compiles
// name a few hundred thousand reason texts and a classification costs microseconds (a second of
// the attributing thread at a million compiles), so the loader classifies them on a thread of
// their own (start_background()) while the run's other rows are read and the compiles ordered;
// they are kept compact (texts in one arena, 40 bytes besides them) where a GuardReason of eight
// strings takes about 450.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/guard_reason.h"
#include "util/text_arena.h"

namespace rcf::analysis {

// What attribution reads of a GuardReason; the views are into its GuardReason or into the
// ClassifiedReasons that returned it.
struct ReasonClass {
  std::string_view cause, confidence, subject, expected, actual, user_code, detail;
  int dim = -1;

  static ReasonClass of(const GuardReason& g) {
    return {g.cause, g.confidence, g.subject, g.expected, g.actual, g.user_code, g.detail, g.dim};
  }
};

class ClassifiedReasons {
 public:
  ClassifiedReasons();
  // These wait for the background thread (of both), if any, dropping its error.
  ~ClassifiedReasons();
  ClassifiedReasons(ClassifiedReasons&& other) noexcept;
  ClassifiedReasons& operator=(ClassifiedReasons&& other) noexcept;

  // Indexes ids 0 .. `limit` - 1 in an array (4 bytes an id); others go to a hash map. Call
  // before the first add().
  void use_dense_ids(int64_t limit) {
    t_.dense.assign(static_cast<size_t>(limit > 0 ? limit : 0), 0);
    t_.queued_dense.assign(t_.dense.size(), false);
  }

  // From now on, add() queues its text for a thread of its own, until wait().
  void start_background();

  // Classifies `reason` as the text of `sid`, unless that id was added already. In the
  // background, the text must stay valid until wait() returns.
  void add(int64_t sid, std::string_view reason);

  // Waits until everything added is classified, and stops the background thread; rethrows what
  // the classification threw. At once when nothing runs in the background. Call before find().
  void wait() const;

  // The classification of `sid`'s text; nullopt when it was not added. The views stay valid
  // while this lives (moving it keeps them valid).
  std::optional<ReasonClass> find(int64_t sid) const {
    uint32_t n = 0;
    if (sid >= 0 && sid < static_cast<int64_t>(t_.dense.size())) {
      n = t_.dense[static_cast<size_t>(sid)];
    } else {
      auto it = t_.sparse.find(sid);
      if (it != t_.sparse.end()) n = it->second;
    }
    if (n == 0) return base_ ? base_->find(sid) : std::nullopt;
    return view(t_.entries[n - 1]);
  }

  // How many texts were classified (call wait() first).
  size_t size() const { return t_.entries.size() + (base_ ? base_->size() : 0); }

  // A copy (after wait()) that finds this one's classifications in it instead of copying them
  // or their index (those it classifies go to its own tables): see TextsById::fork. This must
  // outlive the fork and not change meanwhile.
  ClassifiedReasons fork() const;

 private:
  // The texts of an entry lie one after another in the arena, from `at`, in ReasonClass's
  // order: cause, confidence, subject, expected, actual, user_code, detail.
  static constexpr int kTexts = 7;
  struct Entry {
    const char* at = nullptr;
    uint32_t size[kTexts] = {};
    int32_t dim = -1;
  };

  struct Pending {
    int64_t sid = 0;
    std::string_view reason;
  };
  struct Background;

  void classify(int64_t sid, std::string_view reason);
  ReasonClass view(const Entry& e) const;
  void wait_dropping_errors() noexcept;

  struct Tables {
    std::vector<uint32_t> dense;  // entry number + 1 by id; 0: not classified
    std::unordered_map<int64_t, uint32_t> sparse;
    std::vector<Entry> entries;
    util::TextArena arena;
    // Ids queued for the background thread (the tables above are its own until wait()).
    std::vector<bool> queued_dense;
    std::unordered_set<int64_t> queued_sparse;
  };
  Tables t_;
  mutable std::unique_ptr<Background> background_;  // uses t_ through `this` until wait()
  const ClassifiedReasons* base_ = nullptr;         // a fork's: the one it was forked from
};

}  // namespace rcf::analysis
