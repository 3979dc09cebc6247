#include "tests/support/xla_log_generator.h"

#include <cstdio>
#include <random>
#include <string_view>

namespace rcf::testing {
namespace {

constexpr std::string_view kRuleEq =
    "================================================================================";
constexpr std::string_view kRuleDash =
    "--------------------------------------------------------------------------------";

// Frames of a typical training loop, innermost first (as PT_XLA_DEBUG prints them).
constexpr std::string_view kStepFrames[] = {
    "mark_step (/usr/local/lib/python3.10/site-packages/torch_xla/core/xla_model.py:1055)",
    "optimizer_step (/usr/local/lib/python3.10/site-packages/torch_xla/core/xla_model.py:1244)",
    "train_step (/home/user/project/train.py:142)",
    "train_loop_fn (/home/user/project/train.py:188)",
    "train_epoch (/home/user/project/train.py:231)",
    "main (/home/user/project/train.py:302)",
    "_mp_fn (/home/user/project/train.py:318)",
    "<module> (/home/user/project/train.py:330)",
};
constexpr std::string_view kItemFrames[] = {
    "compute_loss (/home/user/project/model/losses.py:77)",
    "forward (/home/user/project/model/transformer.py:412)",
    "_call_impl (/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py:1527)",
    "_wrapped_call_impl (/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py:1518)",
    "train_step (/home/user/project/train.py:131)",
    "train_loop_fn (/home/user/project/train.py:188)",
    "train_epoch (/home/user/project/train.py:231)",
    "main (/home/user/project/train.py:302)",
};

class Writer {
 public:
  Writer(std::string* out, XlaLogStats* stats) : out_(out), stats_(stats) {}

  void line(std::string_view text) {
    out_->append(text);
    out_->push_back('\n');
    ++stats_->lines;
  }
  void prefixed(std::string_view prefix, std::string_view text) {
    out_->append(prefix);
    line(text);
  }
  void blank() {
    line("");
    ++stats_->blank_lines;
  }

  // One analysis block with its leading empty line.
  void analysis(std::string_view prefix, std::string_view cause_header, std::string_view cause,
                std::string_view hash, int inputs, int outputs, const std::string_view* frames,
                bool cut) {
    char buf[128];
    blank();
    prefixed(prefix, kRuleEq);
    prefixed(prefix, cause_header);
    out_->append(prefix);
    out_->append("  ");
    line(cause);
    prefixed(prefix, "Graph Info: ");
    out_->append(prefix);
    out_->append("  Graph Hash: ");
    line(hash);
    std::snprintf(buf, sizeof buf, "  Number of Graph Inputs: %d", inputs);
    prefixed(prefix, buf);
    std::snprintf(buf, sizeof buf, "  Number of Graph Outputs: %d", outputs);
    prefixed(prefix, buf);
    prefixed(prefix, "Python Frame Triggered Execution: ");
    for (int i = 0; i < 8; ++i) {
      out_->append(prefix);
      out_->append("  ");
      line(frames[i]);
    }
    if (cut) prefixed(prefix, "  ..........");
    prefixed(prefix, kRuleDash);
    prefixed(prefix, kRuleEq);
  }

 private:
  std::string* out_;
  XlaLogStats* stats_;
};

}  // namespace

std::string make_pt_xla_debug_log(size_t approx_bytes, uint32_t seed, XlaLogStats* stats) {
  XlaLogStats local;
  if (!stats) stats = &local;
  *stats = XlaLogStats{};
  std::string out;
  out.reserve(approx_bytes + 4096);
  Writer w(&out, stats);
  std::mt19937 rng(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };

  // A few graph hashes: step graphs and `.item()` fragments, 17-32 hex digits.
  const char* kStepHashes[] = {
      "fbba2ba25aff1cda058689b761890f05", "32202b3d2e4a5ac58e0ea2e47bf5932e",
      "1abebf4362b8342721a64502bd4074c1", "8aa708ab1378ff94a29bb8bc2faae42"};
  const char* kItemHash = "507d309b2d23e1c0ff316e65fbb8d47a";
  char buf[256];
  int64_t step = 0;
  int compiled_mask = 0;  // step graphs compiled so far (bit per hash)
  while (out.size() < approx_bytes) {
    ++step;
    // Training output between steps (tqdm-style progress and a loss print).
    if (chance(0.5)) {
      std::snprintf(buf, sizeof buf,
                    "Epoch %lld:  %2lld%% %lld/800 [00:%02lld<01:10, 10.%lldit/s, loss=0.%04lld]",
                    static_cast<long long>(step / 800), static_cast<long long>(step % 100),
                    static_cast<long long>(step % 800), static_cast<long long>(step % 60),
                    static_cast<long long>(step % 10), static_cast<long long>(rng() % 10000));
      w.line(buf);
      ++stats->other_lines;
    }
    // A rare `.item()` sync fragment: compiled once, executed afterwards.
    if (step % 97 == 0) {
      if (step == 97 || chance(0.2)) {
        w.analysis("Compilation Analysis: ", "Compilation Cause",
                   "most likely user code trying to access tensor value before mark_step",
                   kItemHash, 229, 1, kItemFrames, false);
        ++stats->compile_blocks;
        ++stats->tensor_value_access_blocks;
        bool with_hash = chance(0.5);
        if (with_hash) {
          w.blank();
          w.line("Computation hash: 6c1f0e7bd0b4e1a0a2b2f7e7d9a4c321");
          ++stats->computation_hashes;
        }
        w.blank();
        w.prefixed("Post Compilation Analysis: ", kRuleEq);
        w.prefixed("Post Compilation Analysis: ", "Graph input size: 0.000001 GB");
        w.prefixed("Post Compilation Analysis: ", "Graph output size: 0.000001 GB");
        w.prefixed("Post Compilation Analysis: ", "Aliased Input size: 0.000000 GB");
        w.prefixed("Post Compilation Analysis: ", "Intermediate tensor size: 0.012345 GB");
        w.prefixed("Post Compilation Analysis: ", "Compiled program size: 0.000214 GB");
        w.prefixed("Post Compilation Analysis: ", kRuleDash);
        w.prefixed("Post Compilation Analysis: ", kRuleEq);
        ++stats->post_compiles;
      }
      w.analysis("Execution Analysis: ", "Execution Cause",
                 "most likely user code trying to access tensor value before mark_step", kItemHash,
                 229, 1, kItemFrames, false);
      ++stats->execute_blocks;
    }
    // The step graph: a new hash compiles once (and occasionally again: a recompile).
    int graph = static_cast<int>(rng() % 4);
    if (!(compiled_mask & (1 << graph)) || chance(0.01)) {
      compiled_mask |= 1 << graph;
      w.analysis("Compilation Analysis: ", "Compilation Cause", "user mark_step",
                 kStepHashes[graph], 323, 1138, kStepFrames, true);
      ++stats->compile_blocks;
      w.blank();
      w.prefixed("Post Compilation Analysis: ", kRuleEq);
      w.prefixed("Post Compilation Analysis: ", "Graph input size: 0.169890 GB");
      w.prefixed("Post Compilation Analysis: ", "Graph output size: 0.222694 GB");
      w.prefixed("Post Compilation Analysis: ", "Aliased Input size: 0.145945 GB");
      w.prefixed("Post Compilation Analysis: ", "Intermediate tensor size: 4.341870 GB");
      w.prefixed("Post Compilation Analysis: ", "Compiled program size: 0.095390 GB");
      w.prefixed("Post Compilation Analysis: ", kRuleDash);
      w.prefixed("Post Compilation Analysis: ", kRuleEq);
      ++stats->post_compiles;
    }
    w.analysis("Execution Analysis: ", "Execution Cause", "user mark_step", kStepHashes[graph], 323,
               1138, kStepFrames, true);
    ++stats->execute_blocks;
    // Step analysis (PT_XLA_DEBUG) and the XLA_EMIT_STEPLOG marker.
    if (step % 10 == 0) {
      std::snprintf(buf, sizeof buf,
                    "pt-xla-profiler: TransferFromDeviceTime too frequent: %lld counts during "
                    "%lld steps",
                    static_cast<long long>(step), static_cast<long long>(step));
      w.line(buf);
      ++stats->profiler_notes;
    }
    w.line("torch_xla.core.xla_model::mark_step");
    ++stats->step_markers;
    w.blank();
  }
  return out;
}

}  // namespace rcf::testing
