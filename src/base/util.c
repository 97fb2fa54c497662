/* util.c - allocation helpers, assertions, string buffer, checked math.
 *
 * tl_x* allocators are for small bookkeeping objects: on failure they print
 * one line and abort (like jq's jv_mem_alloc). Tensor data never comes from
 * here; it goes through storage.c, which refuses softly past the limit.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void tl_abort(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "tlab: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static void oom(size_t n)
{
    fprintf(stderr, "tlab: error: cannot allocate %zu bytes of memory\n", n);
    exit(3);
}

void *tl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *tl_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *tl_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *tl_xstrdup(const char *s)
{
    return tl_xstrndup(s, strlen(s));
}

char *tl_xstrndup(const char *s, size_t n)
{
    char *p = tl_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* ---- tl_buf ---- */

static void reserve(tl_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = tl_xrealloc(b->data, cap);
    b->cap = cap;
}

void tl_buf_append(tl_buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tl_buf_puts(tl_buf *b, const char *s) { tl_buf_append(b, s, strlen(s)); }

void tl_buf_putc(tl_buf *b, char c) { tl_buf_append(b, &c, 1); }

void tl_buf_vprintf(tl_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0)
        return;
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void tl_buf_printf(tl_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *tl_buf_steal(tl_buf *b)
{
    char *s = b->data ? b->data : tl_xstrdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void tl_buf_free(tl_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *tl_buf_str(const tl_buf *b) { return b->data ? b->data : ""; }

/* ---- checked arithmetic ---- */

bool tl_mul_overflow(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

bool tl_add_overflow(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The calling thread's CPU time: an op's budget does not shrink while
 * other threads (grade --jobs) or processes compete for the cores. Reading
 * it is a system call (~200 ns), so tl_time_past() bounds it from the vDSO
 * monotonic clock instead: a thread's CPU time grows at most as fast as
 * wall time, so cpu(now) <= cpu_at + (wall(now) - wall_at) when wall_at is
 * read before cpu_at; the real clock is read only when that bound reaches
 * the deadline. */
static _Thread_local double cpu_at, wall_at;

double tl_now(void)
{
    wall_at = clock_s(CLOCK_MONOTONIC);
    cpu_at = clock_s(CLOCK_THREAD_CPUTIME_ID);
    return cpu_at;
}

bool tl_time_past(double when)
{
    if (cpu_at + (clock_s(CLOCK_MONOTONIC) - wall_at) <= when)
        return false;
    return tl_now() > when;
}


static bool same_char(char a, char b, unsigned flags)
{
    return a == b || ((flags & TL_SUGGEST_FOLD_CASE) &&
                      tolower((unsigned char)a) == tolower((unsigned char)b));
}

/* Optimal-string-alignment distance; SIZE_MAX past 64 characters. */
static size_t edit_distance(const char *a, const char *b, unsigned flags)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t v = d[i - 1][j - 1] + !same_char(a[i - 1], b[j - 1], flags);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            /* a transposition matches exactly, even with FOLD_CASE */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *tl_suggest(const char *word, const char *const *cands, size_t n,
                       unsigned flags)
{
    size_t len = strlen(word);
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    if ((flags & TL_SUGGEST_PREFIX) && len > 0) {
        size_t nprefix = 0;
        for (size_t i = 0; i < n; i++)
            if (cands[i] && strncmp(cands[i], word, len) == 0) {
                best = cands[i];
                nprefix++;
            }
        if (nprefix == 1)
            return best;
        best = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cands[i] || strcmp(cands[i], word) == 0)
            continue;
        size_t d = edit_distance(word, cands[i], flags);
        if (d < bestd || (d == bestd && best && !(flags & TL_SUGGEST_FIRST) &&
                          strcmp(cands[i], best) < 0)) {
            bestd = d;
            best = cands[i];
        }
    }
    return bestd <= limit ? best : NULL;
}

tl_read_status tl_read_file(const char *path, size_t max, char **text,
                            size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return TL_READ_OPEN;
    tl_buf b = {0};
    char chunk[65536];
    size_t got;
    tl_read_status st = TL_READ_OK;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        tl_buf_append(&b, chunk, got);
        if (b.len > max) {
            st = TL_READ_TOO_BIG;
            break;
        }
    }
    if (st == TL_READ_OK && ferror(f))
        st = TL_READ_IO;
    int saved = errno;
    fclose(f);
    errno = saved;
    if (st != TL_READ_OK) {
        tl_buf_free(&b);
        return st;
    }
    *len = b.len;
    *text = tl_buf_steal(&b);
    return TL_READ_OK;
}

/* strerror_r is the XSI one (int) or the GNU one (char *) depending on the
 * feature macros; _Generic takes whichever this libc declares. */
static const char *strerror_xsi(int rc, char *buf)
{
    return rc == 0 ? buf : "Unknown error";
}
static const char *strerror_gnu(const char *r, char *buf)
{
    (void)buf;
    return r;
}

const char *tl_strerror(int errnum, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return "Unknown error";
    buf[0] = 0;
    return _Generic(strerror_r(errnum, buf, cap),
                    int: strerror_xsi,
                    char *: strerror_gnu)(strerror_r(errnum, buf, cap), buf);
}
