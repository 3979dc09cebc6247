// The one sanitiser for text that comes from a log (site and function names, file names, guard
// text, details, excerpts, paths) on its way to a terminal, a CI log or a Markdown page. Logs are
// hostile input: they may carry terminal escape sequences (`\e]0;...\a`, `\e[2J`), NUL, BEL,
// invalid UTF-8, bidirectional overrides, or newlines inside a field that would forge output
// lines (in a CI log, a line starting with `::error` or `::stop-commands::` is a workflow
// command). Every function here writes valid UTF-8 (ill-formed bytes become U+FFFD) and shows
// control characters as visible escapes (`\x1b`, `\n`, `\u202e`) instead of sending them.
//
// Where each is used: field_text for one log-derived value inside rcf's terminal text (it never
// starts a new line); terminal_text for a whole text output as it is printed (the last line of
// defence: a field that was missed can still not send a control sequence); github_data /
// github_property for GitHub Actions workflow commands; markdown_text / markdown_code for
// Markdown (reports, the gate's job summary): markup, HTML and links from logs stay inert text.
// html_text and xml_text for the HTML report and the gate's JUnit XML. Markdown, HTML and XML
// take their character entities from one table (safe_text.cc):
//
//   character  HTML    XML     Markdown
//   &          &amp;   &amp;   &amp;
//   <          &lt;    &lt;    &lt;
//   >          &gt;    &gt;    &gt;
//   "          &quot;  &quot;  as is
//   '          &#39;   &apos;  as is
//   tab, LF    as is   &#9;, &#10;  (one space: Markdown text is one line)
//   CR         U+FFFD  &#13;   (one space)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rcf::util {

// Decodes one UTF-8 sequence at `s[i]`: returns its length and sets `cp`, or 0 when it is
// ill-formed (overlong forms, surrogates and values above U+10FFFF included).
size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp);

// `text` with every byte that starts no well-formed sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// True for the characters the functions below never write as they are: C0 controls (tab, CR
// and LF included), DEL, C1 controls, the line and paragraph separators U+2028/U+2029 and the
// bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
bool is_unsafe_char(uint32_t cp);

// The visible escape of an unsafe character: `\n`, `\r`, `\t`, `\x1b`, `\x7f`, `\u009b`, `\u202e`.
std::string escaped_char(uint32_t cp);

// One log-derived value in terminal text: valid UTF-8, every unsafe character escaped (so a
// newline inside it is written `\n` and never starts a line).
std::string field_text(std::string_view text);

// A whole text output (many lines): like field_text, except that LF and tab stay as they are.
std::string terminal_text(std::string_view text);

// GitHub Actions workflow commands (`::error file=F,line=L,title=T::MESSAGE`): the message
// (data) has `%`, CR and LF percent-encoded (%25, %0D, %0A); a property value also `:` and `,`
// (%3A, %2C). Other unsafe characters are escaped as in field_text, ill-formed bytes U+FFFD.
std::string github_data(std::string_view text);
std::string github_property(std::string_view text);

// Markdown inline text (a paragraph, a list item or a table cell): one line (CR, LF and tab
// runs become one space), other unsafe characters escaped as in field_text, Markdown markup
// escaped with backslashes (\ ` * _ [ ] | ~), `<`, `>` and `&` as entities (no HTML), and
// autolinks broken (`http://x` is written `http:&#47;&#47;x`, `www.` `www&#46;`), so no link,
// image, HTML element or table column comes from a log.
std::string markdown_text(std::string_view text);

// HTML element text or attribute value: valid UTF-8, the entities of the table, tab and LF as
// they are, other C0 controls and DEL as U+FFFD.
std::string html_text(std::string_view text);

// XML 1.0 element text or attribute value: valid UTF-8, the entities of the table (tab, LF and CR
// as references, so an attribute value keeps them), the characters XML 1.0 forbids (other C0
// controls, U+FFFE, U+FFFF) as U+FFFD.
std::string xml_text(std::string_view text);

// A Markdown code span holding `text` on one line (CR, LF, tab become spaces; other unsafe
// characters escaped as in field_text); `in_table` also escapes `|`, which GitHub tables split
// cells on even inside code spans. Nothing in a code span renders as a link or HTML.
std::string markdown_code(std::string_view text, bool in_table);

}  // namespace rcf::util
