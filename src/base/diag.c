/* diag.c - located diagnostics with the source line and a caret underline.
 *
 * A span is a byte range inside a tl_source's text; tl_diag_position maps it
 * back to the file (the text may be a YAML scalar that starts mid-line, or a
 * block scalar whose later lines are indented). The caret line is taken from
 * the whole file when we have it (so the YAML indentation is shown exactly as
 * the user wrote it), else from the source text itself. Columns are 1-based
 * byte columns, as GNU tools print them.
 *
 * An error's message may carry a sheet's own text (a `raise` or `assert`
 * message, a device string), so tl_diag_render shows it escaped on its one
 * line (escape.h): no escape sequence, and no newline that could start a
 * forged `FILE:LINE:COL: error:` line or a `::error::` workflow command.
 */
#include "diag.h"
#include "escape.h"

#include <stdio.h>
#include <string.h>

void tl_diag_position(const tl_source *src, int32_t offset, int *line, int *col)
{
    int l = src->line, c = src->col;
    int base = src->col;
    if (src->block_col < 0) { /* no mapping: the scalar's start */
        *line = l;
        *col = c;
        return;
    }
    if (offset < 0)
        offset = 0;
    if ((size_t)offset > src->len)
        offset = (int32_t)src->len;
    for (int32_t i = 0; i < offset; i++) {
        if (src->text[i] == '\n') {
            l++;
            base = src->block_col > 0 ? src->block_col : src->col;
            c = base;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static const char *kind_prefix(tl_errkind k)
{
    switch (k) {
    case TL_ERR_SYNTAX: return "syntax error";
    case TL_ERR_UNSUPPORTED: return "unsupported";
    case TL_ERR_LIMIT: return "limit exceeded";
    case TL_ERR_INTERNAL: return "internal error";
    default: return tl_error_kind_name(k);
    }
}

/* Find line `line` (1-based) in text; returns its start and length. */
static bool find_line(const char *text, size_t len, int line, const char **start,
                      size_t *n)
{
    int cur = 1;
    size_t i = 0;
    while (cur < line && i < len) {
        size_t br = tl_diag_break_len(text, len, i);
        if (br) {
            cur++;
            i += br;
        } else {
            i++;
        }
    }
    if (cur != line || i > len)
        return false;
    size_t j = i;
    while (j < len && text[j] != '\n' && text[j] != '\r')
        j++;
    *start = text + i;
    *n = j - i;
    return true;
}

/* Length of a valid UTF-8 sequence at s[0..n), or 0 when s[0] does not
 * start one. */
static size_t u8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t w = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                            : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (w == 0 || w > n)
        return 0;
    for (size_t k = 1; k < w; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    return w;
}

/* A source line is shown whole up to this many bytes; a longer one (a 1 MiB
 * op on one line) is cut to a window around the column. */
#define LINE_SHOW_MAX 160
#define LINE_SHOW_BEFORE 60

static void put_source_window(tl_buf *out, int line, int col, int width,
                              const char *ltext, size_t ln, bool color, size_t show_max,
                              size_t show_before)
{
    char num[32];
    int w = snprintf(num, sizeof num, "%d", line);
    size_t from = 0, to = ln;
    size_t at = col > 1 ? (size_t)col - 1 : 0;
    if (ln > show_max) {
        from = at > show_before ? at - show_before : 0;
        if (from > ln)
            from = ln;
        while (from > 0 && ((unsigned char)ltext[from] & 0xC0) == 0x80)
            from--; /* not in the middle of a character */
        to = from + show_max < ln ? from + show_max : ln;
    }
    tl_buf_printf(out, " %s | ", num);
    int pad = from > 0 ? 3 : 0; /* the leading "..." */
    if (from > 0)
        tl_buf_puts(out, "...");
    /* bytes as they are when printable UTF-8; controls and broken UTF-8
     * as '?' so the terminal shows what the caret points at */
    for (size_t i = from; i < to;) {
        const unsigned char *u = (const unsigned char *)ltext + i;
        size_t n = u8_len(u, ln - i);
        if (n > 1) {
            tl_buf_append(out, ltext + i, n);
            i += n;
            continue;
        }
        tl_buf_putc(out, *u == '\t' ? ' ' : (n == 0 || *u < 0x20 || *u == 0x7f) ? '?' : (char)*u);
        i++;
    }
    if (to < ln)
        tl_buf_puts(out, "...");
    tl_buf_putc(out, '\n');
    tl_buf_printf(out, " %*s | ", w, "");
    for (size_t i = from; i < at; i++)
        tl_buf_putc(out, ' ');
    for (int i = 0; i < pad; i++)
        tl_buf_putc(out, ' ');
    if (color)
        tl_buf_puts(out, "\033[1;31m");
    size_t carets = width < 1 ? 1 : (size_t)width;
    if (at + carets > to && to > at)
        carets = to - at; /* clipped to the window */
    for (size_t i = 0; i < carets; i++)
        tl_buf_putc(out, '^');
    if (color)
        tl_buf_puts(out, "\033[0m");
    tl_buf_putc(out, '\n');
}

static void put_source_line(tl_buf *out, int line, int col, int width,
                            const char *ltext, size_t ln, bool color)
{
    put_source_window(out, line, col, width, ltext, ln, color, LINE_SHOW_MAX,
                      LINE_SHOW_BEFORE);
}

static void put_header(tl_buf *out, const char *file, int line, int col,
                       bool color)
{
    if (color)
        tl_buf_puts(out, "\033[1m");
    if (line > 0)
        tl_buf_printf(out, "%s:%d:%d: ", file ? file : "<input>", line, col);
    else
        tl_buf_printf(out, "%s: ", file ? file : "<input>");
    if (color)
        tl_buf_puts(out, "\033[1;31merror:\033[0m ");
    else
        tl_buf_puts(out, "error: ");
}

void tl_diag_render(tl_buf *out, const tl_source *src, const tl_error *err,
                    bool color)
{
    int line = src->line, col = src->col;
    bool spanned = err->span.start >= 0;
    if (spanned)
        tl_diag_position(src, err->span.start, &line, &col);
    put_header(out, src->file, line, col, color);
    tl_buf_printf(out, "%s: ", kind_prefix(err->kind));
    tl_escape_line(out, err->msg);
    tl_buf_putc(out, '\n');
    if (!spanned)
        return;

    /* width of the underline: the span, clipped to the end of its line */
    int32_t end = err->span.end > err->span.start ? err->span.end
                                                   : err->span.start + 1;
    if ((size_t)end > src->len)
        end = (int32_t)src->len;
    int width = 0;
    for (int32_t i = err->span.start; i < end && src->block_col >= 0; i++) {
        if (src->text[i] == '\n')
            break;
        width++;
    }

    const char *ltext;
    size_t ln;
    if (src->file_text &&
        find_line(src->file_text, src->file_len, line, &ltext, &ln)) {
        put_source_line(out, line, col, width, ltext, ln, color);
        return;
    }
    /* fall back to the line inside the source text itself */
    int32_t s = err->span.start;
    if ((size_t)s > src->len)
        s = (int32_t)src->len;
    int32_t b = s;
    while (b > 0 && src->text[b - 1] != '\n')
        b--;
    int32_t e = s;
    while ((size_t)e < src->len && src->text[e] != '\n')
        e++;
    put_source_line(out, line, s - b + 1, width, src->text + b,
                    (size_t)(e - b), color);
}

void tl_diag_render_at(tl_buf *out, const char *file, int line, int col,
                       const char *msg, const char *file_text, size_t file_len,
                       bool color)
{
    put_header(out, file, line, col, color);
    tl_buf_printf(out, "%s\n", msg);
    const char *ltext;
    size_t ln;
    if (line > 0 && file_text &&
        find_line(file_text, file_len, line, &ltext, &ln))
        put_source_line(out, line, col, 1, ltext, ln, color);
}

void tl_diag_render_excerpt(tl_buf *out, const char *file, int line, int col,
                            const char *msg, const char *file_text, size_t file_len,
                            bool color)
{
    put_header(out, file, line, col, color);
    tl_buf_printf(out, "%s\n", msg);
    const char *ltext;
    size_t ln;
    if (line > 0 && file_text && find_line(file_text, file_len, line, &ltext, &ln)) {
        /* only the bytes just before the bad one: what follows is not text */
        size_t at = col > 1 ? (size_t)col - 1 : 0;
        if (ln > at + 1)
            ln = at + 1;
        put_source_window(out, line, col, 1, ltext, ln, color, TL_DIAG_EXCERPT,
                          TL_DIAG_EXCERPT - 1);
    }
}
