/* util.c - allocation helpers, assertions, string buffer, checked math.
 *
 * tl_x* allocators are for small bookkeeping objects: on failure they print
 * one line and abort (like jq's jv_mem_alloc). Tensor data never comes from
 * here; it goes through storage.c, which refuses softly past the limit.
 */
#include "config.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "platform.h"
#if TL_HAVE_SIGNALS
#include <signal.h>
#endif
#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#endif
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

size_t tl_alloc_cost(const void *p, size_t n)
{
    if (!p)
        return 0;
#if defined(__GLIBC__)
    (void)n;
    return malloc_usable_size((void *)p) + sizeof(size_t);
#else
    return n + 2 * sizeof(size_t);
#endif
}

void *tl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

/* Small zeroed blocks are malloc + memset: glibc's calloc skips its
 * per-thread cache, so each calloc took the long path and each free of
 * one then overflowed the cache into the bins (a sixth of a `tlab check`
 * in malloc). Large ones keep calloc, which gets zero pages from mmap. */
#define XCALLOC_SMALL 4096

void *tl_xcalloc(size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (size == 0)
        size = 1;
    size_t bytes;
    if (!__builtin_mul_overflow(n, size, &bytes) && bytes <= XCALLOC_SMALL) {
        void *p = malloc(bytes);
        if (!p)
            oom(bytes);
        __asm__("" : "+r"(p)); /* or gcc folds malloc + memset back into calloc */
        return memset(p, 0, bytes);
    }
    void *p = calloc(n, size);
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

void tl_buf_put_i64(tl_buf *b, int64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    /* the magnitude as unsigned: INT64_MIN has no positive int64 */
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    tl_buf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

void tl_buf_put_tuple(tl_buf *b, const int64_t *v, int n)
{
    tl_buf_putc(b, '(');
    for (int i = 0; i < n; i++) {
        if (i)
            tl_buf_append(b, ", ", 2);
        tl_buf_put_i64(b, v[i]);
    }
    tl_buf_puts(b, n == 1 ? ",)" : ")");
}

/* One vsnprintf when the text fits the buffer's free room (or, for a
 * buffer with less room, a 256-byte stack buffer); a second only for
 * longer text. */
void tl_buf_vprintf(tl_buf *b, const char *fmt, va_list ap)
{
    char tmp[256];
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    char *dst = room >= sizeof tmp ? b->data + b->len : tmp;
    size_t dcap = dst == tmp ? sizeof tmp : room;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(dst, dcap, fmt, ap2);
    va_end(ap2);
    if (n <= 0) {
        if (dst != tmp)
            dst[0] = '\0';
        return;
    }
    if ((size_t)n < dcap) {
        if (dst == tmp)
            tl_buf_append(b, tmp, (size_t)n);
        else
            b->len += (size_t)n;
        return;
    }
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

#if defined(__SANITIZE_ADDRESS__) || defined(TL_ASAN)
#define TL_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_LEAK_CHECKED 1
#endif
#endif

bool tl_heap_checked(void)
{
#ifdef TL_LEAK_CHECKED
    return true;
#else
#ifdef HAVE_VALGRIND_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        return true;
#endif
    return false;
#endif
}

bool tl_exit_frees(void)
{
    if (tl_heap_checked())
        return true;
    const char *e = getenv("TLAB_FREE_AT_EXIT");
    return e && strcmp(e, "1") == 0;
}

/* Eight bytes a step (xor, multiply, shift: FNV-1a's byte a step cost
 * four instructions a byte on the sheets' long rule and explanation
 * texts), the length in the start value, then murmur3's fmix64 so that
 * the low bits a power-of-two table keeps depend on every byte. */
uint64_t tl_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    const uint64_t k = 0x9E3779B97F4A7C15u;
    uint64_t h = (seed ^ 0x243F6A8885A308D3u) + n * k;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)s[i] << (8 * i);
    h = (h ^ w) * k;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDu;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53u;
    h ^= h >> 33;
    return h;
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
 * it is a system call (~1 us on a VM; one per run was a fifth of a short
 * `tlab check`), so both functions work from the vDSO monotonic clock: a
 * thread's CPU time grows at most as fast as wall time, so
 * cpu(now) <= cpu_at + (wall(now) - wall_at) when wall_at is read before
 * cpu_at. tl_now() returns that bound while the last real reading is under
 * NOW_SLACK old, so a deadline set from it is late by at most NOW_SLACK
 * (never early: a student's op always gets its whole budget).
 * tl_time_past() reads the real clock only when the bound reaches the
 * deadline. */
#define NOW_SLACK 1e-3
static _Thread_local double cpu_at, wall_at;
static _Thread_local bool cpu_read;

static double now_real(void)
{
    wall_at = clock_s(CLOCK_MONOTONIC);
    cpu_at = clock_s(CLOCK_THREAD_CPUTIME_ID);
    cpu_read = true;
    return cpu_at;
}

double tl_now(void)
{
    double w = clock_s(CLOCK_MONOTONIC);
    if (cpu_read && w - wall_at < NOW_SLACK)
        return cpu_at + (w - wall_at);
    return now_real();
}

bool tl_time_past(double when)
{
    if (cpu_at + (clock_s(CLOCK_MONOTONIC) - wall_at) <= when)
        return false;
    return now_real() > when;
}

static _Thread_local double run_when, run_budget;
static _Thread_local const tl_budget *sheet;
static _Thread_local double sheet_checked; /* wall clock of the last look */
static _Thread_local bool sheet_spent;
static _Thread_local uint64_t sheet_gen;

double tl_deadline_run_begin(double budget)
{
    double saved = run_when;
    run_when = budget > 0 ? tl_now() + budget : 0;
    if (budget > 0)
        run_budget = budget;
    return saved;
}

void tl_deadline_run_end(double saved_when) { run_when = saved_when; }

bool tl_deadline_run_passed(void) { return run_when > 0 && tl_time_past(run_when); }

static double budget_clock(bool process)
{
    return clock_s(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID);
}

void tl_budget_start(tl_budget *b, double seconds, bool process)
{
    static uint64_t gens;
    b->seconds = seconds > 0 ? seconds : 0;
    b->process = process;
    b->start = budget_clock(process);
    b->gen = __atomic_add_fetch(&gens, 1, __ATOMIC_RELAXED);
}

/* Entering the budget the thread is already under (every op of a sheet
 * does) keeps what the thread knows of it: reading the process clock
 * again at every op was 31 of the 35 system calls a 31-op check made
 * after start-up. */
void tl_budget_enter(const tl_budget *b)
{
    const tl_budget *next = b && b->seconds > 0 ? b : NULL;
    if (next && next == sheet && next->gen == sheet_gen)
        return;
    sheet = next;
    sheet_gen = next ? next->gen : 0;
    sheet_spent = false;
    sheet_checked = 0;
}

/* The process clock is a system call and may grow faster than the wall
 * clock (N threads), so it is read at most once per millisecond of wall
 * time: a sheet overruns its budget by at most that times the threads. */
bool tl_budget_passed(void)
{
    if (!sheet)
        return false;
    if (sheet_spent)
        return true;
    double w = clock_s(CLOCK_MONOTONIC);
    if (w - sheet_checked < 1e-3)
        return false;
    sheet_checked = w;
    sheet_spent = budget_clock(sheet->process) - sheet->start > sheet->seconds;
    return sheet_spent;
}

double tl_budget_seconds(void) { return sheet ? sheet->seconds : 0; }

bool tl_deadline_passed(void) { return tl_deadline_run_passed() || tl_budget_passed(); }

void tl_deadline_message(char *buf, size_t cap, double op_budget)
{
    if (tl_budget_passed())
        snprintf(buf, cap, "sheet time budget exceeded (%g s of CPU time per sheet; "
                 "see --sheet-timeout)", sheet->seconds);
    else
        snprintf(buf, cap, "time limit exceeded (%g s per op; see --timeout)",
                 op_budget > 0 ? op_budget : run_budget);
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
        if ((flags & TL_SUGGEST_NEAR) && 2 * d > (len + strlen(cands[i]) + 3) / 3)
            continue;
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

tl_read_status tl_read_regular_file(const char *path, size_t max, bool follow_links,
                                    char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    if (!follow_links)
        flags |= O_NOFOLLOW;
    int fd = open(path, flags);
    if (fd < 0) {
        int saved = errno;
        struct stat ls;
        if (!follow_links && (saved == ELOOP || saved == EMLINK) && lstat(path, &ls) == 0 &&
            S_ISLNK(ls.st_mode))
            return TL_READ_LINK;
        errno = saved;
        return TL_READ_OPEN;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return TL_READ_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return TL_READ_NOT_REGULAR;
    }
    /* a regular file never blocks; clear O_NONBLOCK all the same */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    tl_buf b = {0};
    char chunk[65536];
    tl_read_status rs = TL_READ_OK;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rs = TL_READ_IO;
            break;
        }
        if (got == 0)
            break;
        tl_buf_append(&b, chunk, (size_t)got);
        if (b.len > max) {
            rs = TL_READ_TOO_BIG;
            break;
        }
    }
    int saved = errno;
    close(fd);
    errno = saved;
    if (rs != TL_READ_OK) {
        tl_buf_free(&b);
        return rs;
    }
    *len = b.len;
    *text = b.data ? tl_buf_steal(&b) : tl_xstrdup("");
    return TL_READ_OK;
}

/* ---- the -o temp file, for the signal handler (main.c) */

static char temp_path[4096];
#if TL_HAVE_SIGNALS
static volatile sig_atomic_t temp_set;

static void block_stop_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s, old);
}
#else
/* no signals (wasm32-wasi): nothing can interrupt a rename */
static int temp_set;
typedef int sigset_t;
static void block_stop_signals(sigset_t *old) { *old = 0; }
#define pthread_sigmask(how, set, old) ((void)(set), 0)
#endif

#if TL_HAVE_FILE_MODES
#define make_temp mkstemp
#else
/* mkstemp of a libc without one (wasm32-wasi): the XXXXXX from a counter
 * and the clock, created exclusively */
static int make_temp(char *tmpl)
{
    size_t n = strlen(tmpl);
    if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    static unsigned long seq;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    for (int tries = 0; tries < 100; tries++) {
        unsigned long v = (unsigned long)ts.tv_nsec * 2654435761u + ++seq * 40503u;
        for (int k = 0; k < 6; k++, v /= 36)
            tmpl[n - 6 + k] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
        int fd = open(tmpl, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}
#endif

int tl_tempfile_make(char *tmpl)
{
    sigset_t old;
    block_stop_signals(&old);
    int fd = make_temp(tmpl);
    int saved = errno;
    if (fd >= 0 && strlen(tmpl) < sizeof temp_path) {
        memcpy(temp_path, tmpl, strlen(tmpl) + 1);
        temp_set = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return fd;
}

int tl_tempfile_rename(const char *tmp, const char *final)
{
    sigset_t old;
    block_stop_signals(&old);
    int rc = rename(tmp, final);
    int saved = errno;
    temp_set = 0;
    if (rc != 0)
        unlink(tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return rc;
}

void tl_tempfile_discard(const char *tmp)
{
    sigset_t old;
    block_stop_signals(&old);
    unlink(tmp);
    temp_set = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void tl_tempfile_remove_now(void)
{
    if (temp_set)
        unlink(temp_path);
    temp_set = 0;
}

/* SA_RESETHAND restores the default action and SA_NODEFER lets raise()
 * deliver the signal at once: the process dies of it, as it would have. */
#if TL_HAVE_SIGNALS
static void on_stop_signal(int sig)
{
    tl_tempfile_remove_now();
    raise(sig);
}
#endif

void tl_tempfile_install_handlers(void)
{
#if TL_HAVE_SIGNALS
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#endif
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
