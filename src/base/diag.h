/* diag.h - source texts and located diagnostics (jq's locfile, for tlab).
 *
 * A tl_source is a piece of op-language text together with where it sits:
 * a file and the 1-based line/column of its first byte. Text that came from
 * a YAML block scalar (`setup: |`) continues on following lines at column
 * `block_col`; text from a plain/quoted scalar is one line at `col`.
 *
 * Rendering (tl_diag_render) produces, for an error with a span:
 *
 *   lab01.yaml:12:9: error: RuntimeError: view size is not compatible ...
 *      12 |     op: x.t().view(24)
 *         |         ^^^^^^^^^^^^^^
 *
 * and `FILE:LINE:COL: error: MESSAGE` alone when there is no span.
 * Ownership: a tl_source borrows its text and file name.
 */
#ifndef TL_DIAG_H
#define TL_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_source {
    const char *text;  /* the op-language text (not NUL-terminated needed) */
    size_t len;
    const char *file;  /* "lab01.yaml", or "<expr>" for the command line */
    int line;          /* 1-based line of text[0] in file */
    int col;           /* 1-based column of text[0] */
    int block_col;     /* 1-based column of lines after the first; 0 = col;
                        * < 0: the text was decoded from a YAML scalar with
                        * escapes or folded lines, so offsets in it do not
                        * map to the file: every position is (line, col) */
    const char *file_text; /* whole file for the caret line, or NULL */
    size_t file_len;
} tl_source;

/* Map a byte offset in src->text to a file line/column (1-based). */
/* Length of the line break at text[i]: 2 for CR LF, 1 for LF or a lone
 * CR, 0 for anything else. Lines are counted this way everywhere (libyaml
 * counts them so; lab.c refuses the other breaks it knows, NEL, U+2028
 * and U+2029), so line numbers agree between libyaml's marks, the loader,
 * `tlab new` and the source lines shown here. Inline: the loader asks
 * for every byte of every sheet. */
static inline size_t tl_diag_break_len(const char *text, size_t len, size_t i)
{
    if (i >= len || (text[i] != '\n' && text[i] != '\r'))
        return 0;
    if (text[i] == '\n')
        return 1;
    return i + 1 < len && text[i + 1] == '\n' ? 2 : 1;
}

void tl_diag_position(const tl_source *src, int32_t offset, int *line, int *col);

/* Render err (which carries a span into src, or none) as described above.
 * Output ends with a newline. `color` adds ANSI red/bold. */
void tl_diag_render(tl_buf *out, const tl_source *src, const tl_error *err,
                    bool color);

/* `FILE:LINE:COL: error: MSG\n` for errors that have a file position
 * but no source text (YAML structure errors). */
void tl_diag_render_at(tl_buf *out, const char *file, int line, int col,
                       const char *msg, const char *file_text, size_t file_len,
                       bool color);

/* The same for a file that is not valid UTF-8 text (a binary, a NUL, a
 * control byte): the source line is cut to at most TL_DIAG_EXCERPT bytes,
 * ending at the bad byte, every control shown as '?'. */
#define TL_DIAG_EXCERPT 24
void tl_diag_render_excerpt(tl_buf *out, const char *file, int line, int col,
                            const char *msg, const char *file_text, size_t file_len,
                            bool color);

#ifdef __cplusplus
}
#endif

#endif
