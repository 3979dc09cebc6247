#include "tests/support/hlo_generator.h"

#include <string>
#include <vector>

namespace rcf::testing {
namespace {

// splitmix64: deterministic and independent of the standard library's engines.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

struct Value {
  std::string name;
  std::string shape;  // f32[4,128]{1,0}
};

std::string shape_of(int rows, int cols) {
  return "f32[" + std::to_string(rows) + "," + std::to_string(cols) + "]{1,0}";
}

std::string metadata(Rng& rng, std::string_view op) {
  static constexpr const char* kFiles[] = {"train.py", "model.py", "layers/attention.py",
                                           "layers/mlp.py"};
  static constexpr const char* kFns[] = {"forward", "step", "<module>", "loss_fn"};
  return ", metadata={op_type=\"aten__" + std::string(op) + "\" op_name=\"aten__" +
         std::string(op) + "\" source_file=\"" + kFns[rng.below(4)] + "@" + kFiles[rng.below(4)] +
         "\" source_line=" + std::to_string(1 + rng.below(400)) + "}";
}

}  // namespace

std::string make_hlo_module_text(int module_index, size_t approx_bytes, uint32_t seed) {
  Rng rng{(uint64_t{seed} << 32) ^ static_cast<uint64_t>(module_index) ^ 0x5eedull};
  const int rows = 4 << rng.below(4);
  const int cols = 128 << rng.below(3);
  const int param_count = 4 + rng.below(12);
  int id = 1;
  auto next_name = [&](std::string_view base) {
    return std::string(base) + "." + std::to_string(id++);
  };

  std::string out;
  out.reserve(approx_bytes + 4096);
  std::string layout;
  for (int p = 0; p < param_count; ++p) {
    if (p) layout += ", ";
    if (p % 5 == 0 && p) layout += "/*index=" + std::to_string(p) + "*/";
    layout += p == 0 ? "s64[]" : shape_of(rows, cols);
  }
  const std::string result = shape_of(rows, cols);
  out += "HloModule SyncTensorsGraph." + std::to_string(1000 + module_index) +
         ", entry_computation_layout={(" + layout + ")->(" + result + ")}\n\n";
  const std::string reducer = next_name("AddComputation");
  out += "%" + reducer + " (x." + std::to_string(id) + ": f32[], y." + std::to_string(id + 1) +
         ": f32[]) -> f32[] {\n";
  out += "  %x." + std::to_string(id) + " = f32[] parameter(0)\n";
  out += "  %y." + std::to_string(id + 1) + " = f32[] parameter(1)\n";
  out += "  ROOT %add." + std::to_string(id + 2) + " = f32[] add(f32[] %x." + std::to_string(id) +
         ", f32[] %y." + std::to_string(id + 1) + ")\n}\n\n";
  id += 3;

  const std::string entry = "SyncTensorsGraph." + std::to_string(1000 + module_index);
  std::string header = "%" + entry + " (";
  std::vector<Value> values;
  std::string body;
  for (int p = 0; p < param_count; ++p) {
    Value v{next_name("p" + std::to_string(p)), p == 0 ? "s64[]" : shape_of(rows, cols)};
    if (p) header += ", ";
    header += v.name + ": " + v.shape;
    body += "  %" + v.name + " = " + v.shape + " parameter(" + std::to_string(p) + ")" +
            metadata(rng, "device_data") + "\n";
    if (p) values.push_back(v);
  }
  out += "ENTRY " + header + ") -> (" + result + ") {\n" + body;

  static constexpr const char* kBinary[] = {"add", "multiply", "subtract", "maximum", "divide"};
  static constexpr const char* kUnary[] = {"exponential", "tanh", "negate", "sqrt", "log"};
  while (out.size() + 200 < approx_bytes) {
    const Value& a = values[values.size() - 1 - rng.below(std::min<int>(values.size(), 8))];
    const Value& b = values[rng.below(values.size())];
    Value v;
    std::string line;
    switch (rng.below(8)) {
      case 0: {  // scalar constant broadcast into a binary op
        std::string c = next_name("constant");
        static constexpr const char* kScalars[] = {"0", "1", "-1", "0.5", "-inf"};
        out += "  %" + c + " = f32[] constant(" + kScalars[rng.below(5)] + ")" +
               metadata(rng, "Constant") + "\n";
        v = {next_name("broadcast"), a.shape};
        line = v.name + " = " + v.shape + " broadcast(f32[] %" + c + "), dimensions={}" +
               metadata(rng, "expand");
        break;
      }
      case 1: {  // large elided constant
        std::string c = next_name("constant");
        out += "  %" + c + " = " + a.shape + " constant({...})" + metadata(rng, "Constant") + "\n";
        v = {next_name("add"), a.shape};
        line = v.name + " = " + v.shape + " add(" + a.shape + " %" + a.name + ", " + a.shape +
               " %" + c + ")" + metadata(rng, "add");
        break;
      }
      case 2:
      case 3:
      case 4: {
        const char* op = kBinary[rng.below(5)];
        v = {next_name(op), a.shape};
        line = v.name + " = " + v.shape + " " + op + "(" + a.shape + " %" + a.name + ", " +
               b.shape + " %" + b.name + ")" + metadata(rng, op);
        break;
      }
      case 5: {
        const char* op = kUnary[rng.below(5)];
        v = {next_name(op), a.shape};
        line = v.name + " = " + v.shape + " " + op + "(" + a.shape + " %" + a.name + ")" +
               metadata(rng, op);
        break;
      }
      case 6: {  // transpose + dot
        std::string t = next_name("transpose");
        std::string ts = shape_of(cols, rows);
        out += "  %" + t + " = " + ts + " transpose(" + b.shape + " %" + b.name +
               "), dimensions={1,0}" + metadata(rng, "permute") + "\n";
        std::string d = next_name("dot");
        std::string ds = shape_of(rows, rows);
        out += "  %" + d + " = " + ds + " dot(" + a.shape + " %" + a.name + ", " + ts + " %" + t +
               "), lhs_contracting_dims={1}, rhs_contracting_dims={0}" + metadata(rng, "mm") + "\n";
        v = {next_name("multiply"), a.shape};
        line = v.name + " = " + v.shape + " multiply(" + a.shape + " %" + a.name + ", " + b.shape +
               " %" + b.name + ")" + metadata(rng, "mul");
        break;
      }
      default: {  // reduce over columns and broadcast back
        std::string zero = next_name("constant");
        out += "  %" + zero + " = f32[] constant(0)" + metadata(rng, "Constant") + "\n";
        std::string r = next_name("reduce");
        std::string rs = "f32[" + std::to_string(rows) + "]{0}";
        out += "  %" + r + " = " + rs + " reduce(" + a.shape + " %" + a.name + ", f32[] %" + zero +
               "), dimensions={1}, to_apply=%" + reducer + metadata(rng, "sum") + "\n";
        v = {next_name("broadcast"), a.shape};
        line = v.name + " = " + v.shape + " broadcast(" + rs + " %" + r + "), dimensions={0}" +
               metadata(rng, "expand");
        break;
      }
    }
    out += "  %" + line + "\n";
    values.push_back(std::move(v));
  }
  const Value& last = values.back();
  out += "  ROOT %" + next_name("tuple") + " = (" + last.shape + ") tuple(" + last.shape + " %" +
         last.name + ")\n}\n\n";
  return out;
}

}  // namespace rcf::testing
