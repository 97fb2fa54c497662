/* pywarn.c - Python's warnings on stderr for `tlab exec` (torch's
 * UserWarnings: the named-tensor notice, out= resizes). Python's default
 * filter prints a warning once per (message, category, line): kept as a
 * small table of hashes per run; past its size a warning is shown again
 * rather than lost. The source line is the student's text: control bytes
 * go out as '?' so no escape sequence reaches a terminal.
 */
#include "pywarn.h"

#include <stdbool.h>
#include <string.h>

#define SEEN_MAX 64

static _Thread_local FILE *out;
static _Thread_local const char *src_file, *src_text;
static _Thread_local size_t src_len;
static _Thread_local int32_t stmt_at = -1;
static _Thread_local unsigned run;
static _Thread_local uint64_t seen[SEEN_MAX];
static _Thread_local int nseen;

void tl_pywarn_set(FILE *f, const char *file, const char *text, size_t len)
{
    out = f;
    src_file = file;
    src_text = text;
    src_len = len;
    stmt_at = -1;
    nseen = 0;
    run++;
}

void tl_pywarn_note_statement(int32_t start)
{
    stmt_at = start;
}

unsigned tl_pywarn_run(void)
{
    return run;
}

/* FNV-1a of the category, message and line */
static uint64_t key_of(const char *category, const char *message, int line)
{
    uint64_t h = 1469598103934665603u;
    for (const char *p = category; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    for (const char *p = message; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    return (h ^ (uint64_t)(uint32_t)line) * 1099511628211u;
}

void tl_pywarn_emit(const char *category, const char *message)
{
    if (!out)
        return;
    bool located = src_file && src_text && stmt_at >= 0 && (size_t)stmt_at <= src_len;
    int line = 1;
    size_t bol = 0;
    for (size_t i = 0; located && i < (size_t)stmt_at; i++)
        if (src_text[i] == '\n') {
            line++;
            bol = i + 1;
        }
    uint64_t k = key_of(category, message, located ? line : 0);
    for (int i = 0; i < nseen; i++)
        if (seen[i] == k)
            return;
    if (nseen < SEEN_MAX)
        seen[nseen++] = k;
    if (!located) {
        fprintf(out, "%s: %s\n", category, message);
        fflush(out);
        return;
    }
    size_t eol = bol;
    while (eol < src_len && src_text[eol] != '\n' && src_text[eol] != '\r')
        eol++;
    while (bol < eol && (src_text[bol] == ' ' || src_text[bol] == '\t'))
        bol++;
    while (eol > bol && (src_text[eol - 1] == ' ' || src_text[eol - 1] == '\t'))
        eol--;
    fprintf(out, "%s:%d: %s: %s\n  ", src_file, line, category, message);
    for (size_t i = bol; i < eol; i++) {
        unsigned char c = (unsigned char)src_text[i];
        fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
    }
    fputc('\n', out);
    fflush(out);
}
