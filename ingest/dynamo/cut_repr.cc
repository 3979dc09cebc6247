#include "ingest/dynamo/cut_repr.h"

#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {

bool CutRepr::is_open() const {
  return python_value_is_cut(text);
}

void CutRepr::append(std::string_view line, int64_t at) {
  if (line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
    text.push_back(' ');
    text.append(line.substr(2));
  } else {
    text.append(line);
  }
  continuation_lines.push_back(at);
}

}  // namespace rcf::ingest
