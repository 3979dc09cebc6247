# Turns a text file into a C++ raw string so the binary carries it (sql/schema.sql, the HTML
# report's report/assets/). Run as `cmake -DIN=... -DOUT=... -DLABEL=... -DHEADER=...
# -DNAMESPACE=... -DNAME=... -P embed_text.cmake`: OUT defines NAMESPACE::NAME, declared in HEADER,
# as the bytes of IN. LABEL (the path under the source tree) names the input in the generated
# file, which holds no absolute path so every clone compiles the same text (ccache hits).
file(READ ${IN} CONTENT)
string(FIND "${CONTENT}" ")rcfembed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${LABEL} contains )rcfembed\", the end of the raw string it is embedded in")
endif()
file(WRITE ${OUT} "// Generated from ${LABEL} by cmake/embed_text.cmake; do not edit.
#include \"${HEADER}\"
namespace ${NAMESPACE} {
const char* const ${NAME} = R\"rcfembed(${CONTENT})rcfembed\";
}
")
