// Generated Dynamo consoles of a long training run, for the tests of what `rcf watch` keeps
// between batches (tests/dynamo_record_cache_test.cc, tests/watch_preview_test.cc).
#pragma once

#include <string>

namespace rcf::testing {

// The three lines of a TORCH_LOGS=recompiles block: compile `frame`/`compile` of fn_`frame`,
// rejected by the entry of `frame`/`compile - 1` (tensor 'x' dim 0: 8 -> 9 + compile).
std::string recompile_block(int frame, int compile);

// `steps` progress lines (`epoch 0 step N/steps loss 0.0218`), and after every third a recompile
// block of one of `frames` frames in turn: progress lines decide the run's steps.
std::string training_console(int steps, int frames);

}  // namespace rcf::testing
