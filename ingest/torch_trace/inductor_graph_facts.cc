#include "ingest/torch_trace/inductor_graph_facts.h"

#include <nlohmann/json.hpp>

#include "util/json_depth.h"

namespace rcf::ingest {
namespace {

using json = nlohmann::json;

// The payload as a DOM, or discarded when malformed or nested too deep.
json parse(std::string_view text) {
  if (util::json_too_deep_at(text) != std::string_view::npos) return json(json::value_t::discarded);
  return json::parse(text.begin(), text.end(), nullptr, false);
}

std::string ints_text(const json& list) {
  std::string out = "[";
  if (list.is_array()) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out += ", ";
      out += list[i].is_number_integer() ? std::to_string(list[i].get<int64_t>()) : "?";
    }
  }
  return out + "]";
}

std::string output_text(const json& output) {
  std::string dtype = "?";
  if (auto it = output.find("dtype"); it != output.end() && it->is_string())
    dtype = it->get<std::string>();
  auto shape = output.find("shape");
  auto stride = output.find("stride");
  return dtype + ints_text(shape == output.end() ? json() : *shape) + " stride " +
         ints_text(stride == output.end() ? json() : *stride);
}

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

// The op called on `line` when it calls a functional collective, else "".
std::string collective_call(std::string_view line) {
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos || line[start] == '#') return {};
  for (std::string_view prefix : {"torch.ops._c10d_functional.", "torch.ops.c10d_functional."}) {
    size_t at = line.find(prefix);
    if (at == std::string_view::npos) continue;
    if (at > 0 && (is_ident(line[at - 1]) || line[at - 1] == '\'' || line[at - 1] == '"')) continue;
    size_t end = at + prefix.size();
    while (end < line.size() && is_ident(line[end])) ++end;
    if (end < line.size() && line[end] == '(') return std::string(line.substr(at, end - at));
  }
  return {};
}

}  // namespace

std::optional<std::vector<std::string>> collective_schedule_items(std::string_view payload) {
  json parsed = parse(payload);
  if (!parsed.is_array()) return std::nullopt;
  std::vector<std::string> items;
  for (const json& op : parsed) items.push_back(op.is_string() ? op.get<std::string>() : op.dump());
  return items;
}

std::optional<std::vector<std::string>> code_collective_items(std::string_view code) {
  if (code.find("c10d_functional") == std::string_view::npos) return std::nullopt;
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= code.size()) {
    size_t end = code.find('\n', begin);
    if (end == std::string_view::npos) end = code.size();
    if (std::string op = collective_call(code.substr(begin, end - begin)); !op.empty())
      items.push_back(std::move(op));
    begin = end + 1;
  }
  return items;
}

std::optional<std::vector<std::string>> tensor_meta_items(std::string_view payload) {
  json parsed = parse(payload);
  if (!parsed.is_object()) return std::nullopt;
  auto ops = parsed.find("ops");
  if (ops == parsed.end() || !ops->is_array()) return std::nullopt;
  std::vector<std::string> items;
  for (const json& op : *ops) {
    if (!op.is_object()) continue;
    auto name = op.find("name");
    std::string item = name != op.end() && name->is_string() ? name->get<std::string>() : "?";
    item += " ->";
    auto outputs = op.find("outputs");
    if (outputs == op.end() || !outputs->is_array() || outputs->empty()) item += " no outputs";
    for (size_t i = 0; outputs != op.end() && outputs->is_array() && i < outputs->size(); ++i) {
      item += i ? " + " : " ";
      item += (*outputs)[i].is_object() ? output_text((*outputs)[i]) : std::string("?");
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::optional<std::vector<std::string>> execution_order_items(std::string_view payload) {
  json parsed = parse(payload);
  if (!parsed.is_object()) return std::nullopt;
  auto order = parsed.find("graph_execution_order");
  if (order == parsed.end() || !order->is_array()) return std::nullopt;
  std::vector<std::string> items;
  for (const json& entry : *order) {
    auto id = entry.is_object() ? entry.find("compile_id") : entry.end();
    items.push_back(entry.is_object() && id != entry.end() && id->is_string()
                        ? id->get<std::string>()
                        : std::string("?"));
  }
  return items;
}

}  // namespace rcf::ingest
