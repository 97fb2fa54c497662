/* escape.h - showing untrusted text (from a student's sheet) safely in
 * every output: terminal text, error messages, CSV, XML, HTML, GitHub workflow
 * commands, TAP and YAML diagnostics (SPEC 2: text from a sheet can never
 * add a line, a control character or an escape sequence to any output).
 *
 * One rule underlies every function: a "control" is a C0 character
 * (0x00-0x1F), DEL (0x7F), a C1 character (U+0080-U+009F, i.e. the UTF-8
 * pairs C2 80..C2 9F), a line or paragraph separator (U+2028, U+2029), a
 * bidirectional override (U+200E/F, U+202A-U+202E, U+2066-U+2069), or a
 * byte that is not valid UTF-8. Controls are shown as visible escapes:
 *   \n \r \t \e (ESC, so an escape sequence shows as \e[2J), \xNN for the
 *   other C0 characters, DEL and invalid bytes, \uNNNN for the rest.
 * Everything else (printable ASCII, valid UTF-8, backslashes) passes
 * unchanged, so ordinary text looks the same as before.
 *
 * JSON needs no function here: cJSON escapes C0 itself, and
 * tl_escape_json_controls turns the raw DEL/C1/separator bytes cJSON
 * leaves alone into \u escapes after printing.
 *
 * Every function appends to a tl_buf (util.h); nothing here allocates
 * except through it and tl_escape_line_dup (caller frees).
 */
#ifndef TL_ESCAPE_H
#define TL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Single-line contexts (error messages, text cells, CSV cells): every
 * control, newlines included, as a visible escape. */
void tl_escape_line(tl_buf *b, const char *s);
void tl_escape_line_n(tl_buf *b, const char *s, size_t n);
/* The same into a new string (caller frees). */
char *tl_escape_line_dup(const char *s);

/* Multi-line contexts (a message body that may span lines): newlines are
 * kept, every continuation line starts with `indent` (so no line of s can
 * begin with "FILE:" or "::" at column 1), a trailing newline is dropped,
 * every other control is escaped as in tl_escape_line. `indent` must be
 * non-empty for the guarantee. */
void tl_escape_lines(tl_buf *b, const char *s, const char *indent);

/* XML character data (attr false) or an attribute value (attr true):
 * & < > " ' as entities; a tab is &#9;; a newline is kept in text and
 * &#10; in an attribute. Other controls (most are not even allowed in
 * XML 1.0) appear as the visible escapes above. */
void tl_escape_xml(tl_buf *b, const char *s, bool attr);

/* HTML5 text or attribute values (also well-formed XML, so a page can be
 * checked with an XML parser): & < > " ' as &amp; &lt; &gt; &quot; &#39;.
 * multiline false (cells, attributes, titles): every control, newlines
 * included, as the visible escapes above; true (a block shown with
 * white-space: pre-wrap): newlines are kept, a tab is &#9;, every other
 * control is a visible escape. No named entity but the XML five is ever
 * written. */
void tl_escape_html(tl_buf *b, const char *s, bool multiline);

/* GitHub workflow commands (`::error file=F,line=L::MESSAGE`): the
 * runner's escapes, %25 %0D %0A, plus %3A and %2C in properties; other
 * controls as visible escapes first. The result is always one line. */
void tl_escape_gh_data(tl_buf *b, const char *s);
void tl_escape_gh_prop(tl_buf *b, const char *s);

/* A CSV field (RFC 4180): single-line escaped, then quoted when it holds
 * a comma, a quote or leading/trailing space (quotes doubled). A field
 * that starts with = + - @ is prefixed with ' so a spreadsheet does not
 * run it as a formula. The first field of a row starts a line: write it
 * with tl_escape_csv_head, which also quotes a risky start (see
 * tl_escape_risky_start). */
void tl_escape_csv(tl_buf *b, const char *s);
void tl_escape_csv_head(tl_buf *b, const char *s);

/* Would s, printed at the start of a line, pass for a command or a
 * diagnostic of its own: a workflow command ("::error::...") or a located
 * message ("FILE:LINE:")? A caller that starts a line with untrusted text
 * prefixes "\\" (text) or quotes it (CSV) when this is true. */
bool tl_escape_risky_start(const char *s);
/* s as one shell word (POSIX sh): as is when it is only letters, digits
 * and `_./:=+,@%-`, else in single quotes ('\'' for a quote). false, with
 * nothing appended, when s is empty or has a control character or a
 * non-ASCII byte: such a word is never offered as a command to paste. */
bool tl_escape_shell(tl_buf *b, const char *s);

/* Does s contain a control (as defined above)? */
bool tl_escape_has_control(const char *s);

/* After printing a JSON document: replace in place the raw controls a
 * JSON writer may leave (DEL, C1, U+2028/9, bidi overrides) by \u
 * escapes. Returns the new string (s is consumed: freed or reused). The
 * result is the same JSON value. */
char *tl_escape_json_controls(char *s);

#ifdef __cplusplus
}
#endif

#endif
