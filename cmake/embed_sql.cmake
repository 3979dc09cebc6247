# Turns sql/schema.sql into a C++ raw string so the binary carries its own schema.
file(READ ${IN} CONTENT)
file(WRITE ${OUT} "// Generated from sql/schema.sql; do not edit.\n#include \"store/schema.h\"\nnamespace rcf::store {\nconst char* const kSchemaSql = R\"rcfsql(${CONTENT})rcfsql\";\n}\n")
