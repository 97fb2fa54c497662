/* diag.c - located diagnostics with the source line and a caret underline.
 *
 * A span is a byte range inside a tl_source's text; tl_diag_position maps it
 * back to the file (the text may be a YAML scalar that starts mid-line, or a
 * block scalar whose later lines are indented). The caret line is taken from
 * the whole file when we have it (so the YAML indentation is shown exactly as
 * the user wrote it), else from the source text itself. Columns are 1-based
 * byte columns, as GNU tools print them.
 */
#include "diag.h"

#include <stdio.h>
#include <string.h>

void tl_diag_position(const tl_source *src, int32_t offset, int *line, int *col)
{
    int l = src->line, c = src->col;
    int base = src->col;
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
        if (text[i] == '\n')
            cur++;
        i++;
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

static void put_source_line(tl_buf *out, int line, int col, int width,
                            const char *ltext, size_t ln, bool color)
{
    char num[32];
    int w = snprintf(num, sizeof num, "%d", line);
    tl_buf_printf(out, " %s | ", num);
    for (size_t i = 0; i < ln; i++) {
        unsigned char ch = (unsigned char)ltext[i];
        tl_buf_putc(out, ch == '\t' ? ' ' : (ch < 0x20 ? '?' : (char)ch));
    }
    tl_buf_putc(out, '\n');
    tl_buf_printf(out, " %*s | ", w, "");
    for (int i = 1; i < col; i++)
        tl_buf_putc(out, ' ');
    if (color)
        tl_buf_puts(out, "\033[1;31m");
    for (int i = 0; i < (width < 1 ? 1 : width); i++)
        tl_buf_putc(out, '^');
    if (color)
        tl_buf_puts(out, "\033[0m");
    tl_buf_putc(out, '\n');
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
    tl_buf_printf(out, "%s: %s\n", kind_prefix(err->kind), err->msg);
    if (!spanned)
        return;

    /* width of the underline: the span, clipped to the end of its line */
    int32_t end = err->span.end > err->span.start ? err->span.end
                                                   : err->span.start + 1;
    if ((size_t)end > src->len)
        end = (int32_t)src->len;
    int width = 0;
    for (int32_t i = err->span.start; i < end; i++) {
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
