#include "ingest/dynamo/dynamo_guard_dump.h"

#include <algorithm>
#include <set>

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// Most changed guards reported per compile (the first decides its cause; the rest are counted).
constexpr size_t kMaxChangedGuards = 8;

// The guard a dump line holds, or "" for structure (`GUARDS:`, `TREE_GUARD_MANAGER:`, manager
// lines) and the tree drawing in front of leaf guards (`| +- LAMBDA_GUARD: ...`).
std::string_view guard_text(std::string_view message) {
  std::string_view t = trim(message);
  while (!t.empty() && (t[0] == '|' || t[0] == '+' || t[0] == '-' || t[0] == ' '))
    t.remove_prefix(1);
  if (t.empty() || t.ends_with(":") || t.find("GuardManager") != std::string_view::npos) return {};
  return t;
}

bool same_compile(const CompileRef& a, const CompileRef& b) {
  return a.rank == b.rank && a.epoch == b.epoch && a.id == b.id;
}

}  // namespace

void GuardDumpReader::read(const CompileRef& ref, int64_t pid, std::string_view message,
                           int64_t line_no) {
  if (!open_ || !same_compile(current_.ref, ref)) {
    close_current();
    open_ = true;
    current_ = Dump{ref, line_no, {}};
    DynamoCompile compile;
    compile.line = line_no;
    compile.ref = ref;
    compile.kind = "guard_dump";
    compile.pid = pid;
    sink_.emit(std::move(compile));
  }
  std::string_view guard = guard_text(message);
  if (guard.empty()) {
    sink_.note(line_no, reason::kGuardDumpStructure, message);
    return;
  }
  current_.guards.emplace_back(guard);
}

void GuardDumpReader::close_current() {
  if (!open_) return;
  open_ = false;
  const CompileId& id = current_.ref.id;
  FrameKey frame{current_.ref.rank, current_.ref.epoch, id.compiled_autograd, id.frame};
  auto it = last_of_frame_.find(frame);
  if (it != last_of_frame_.end() && it->second.ref.id.compile + 1 == id.compile) {
    std::set<std::string_view> now(current_.guards.begin(), current_.guards.end());
    int32_t index = 0;
    for (const std::string& old : it->second.guards) {
      if (now.count(old) || size_t(index) >= kMaxChangedGuards) continue;
      GuardFailure failure;
      failure.line = current_.line;
      failure.ref = current_.ref;
      failure.entry_index = index++;
      failure.old_compile_id = it->second.ref.id.text();
      failure.reason = old;
      failure.origin = "text_guards_diff";
      sink_.emit(std::move(failure));
    }
  }
  last_of_frame_[frame] = std::move(current_);
}

void GuardDumpReader::finish() {
  close_current();
}

}  // namespace rcf::ingest
