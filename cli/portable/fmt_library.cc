// fmt's out-of-line part, for the binaries that link static archives, rcf and rcf_portable
// (CMakeLists.txt, docs/python.md): the functions that libfmt.so holds and the headers declare
// without defining. Debian ships fmt as a shared library and headers, without a static archive;
// compiling its implementation header here links them into the binary instead (libfmt.so would
// load the shared libstdc++). A sanitizer build's rcf links libfmt.so and never compiles this
// file.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

// The two templates fmt/format.h declares `extern template` (when fmt is not header-only) that
// rcf's objects call: the locale's digit grouping and decimal point for `char`. Everything else
// they call is a plain function of format-inl.h, defined by including it.
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;

}  // namespace detail
FMT_END_NAMESPACE
