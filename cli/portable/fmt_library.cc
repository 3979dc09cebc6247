// fmt's out-of-line part, for rcf_portable only (CMakeLists.txt, docs/python.md): the functions
// and template instances that libfmt.so holds and the headers declare without defining. Debian
// ships fmt as a shared library and headers, without a static archive; compiling its
// implementation header here links them into the portable binary instead. The rcf binary links
// libfmt.so and never compiles this file.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

// The instances fmt/format.h declares `extern template` when fmt is not header-only, and those
// the formatting of rcf's objects calls: floating point (Dragonbox), locales, buffers.
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
