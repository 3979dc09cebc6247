#include "tests/support/training_console.h"

#include <vector>

namespace rcf::testing {

std::string recompile_block(int frame, int compile) {
  const std::string prefix = "V1126 20:42:45.142000 1003 torch/_dynamo/guards.py:4760] [" +
                             std::to_string(frame) + "/" + std::to_string(compile) +
                             "] [__recompiles] ";
  return prefix + "Recompiling function fn_" + std::to_string(frame) +
         " in /m/model.py:" + std::to_string(frame + 10) + "\n" + prefix +
         "    triggered by the following guard failure(s):\n" + prefix + "    - " +
         std::to_string(frame) + "/" + std::to_string(compile - 1) +
         ": tensor 'x' size mismatch at index 0. expected 8, actual " +
         std::to_string(9 + compile) + "\n";
}

std::string training_console(int steps, int frames) {
  std::string text;
  std::vector<int> compiles(static_cast<size_t>(frames), 0);
  for (int step = 1; step <= steps; ++step) {
    text += "epoch 0 step " + std::to_string(step) + "/" + std::to_string(steps) + " loss 0.0218\n";
    if (step % 3 != 0) continue;
    const int frame = (step / 3) % frames;
    text += recompile_block(frame, ++compiles[static_cast<size_t>(frame)]);
  }
  return text;
}

}  // namespace rcf::testing
