/* util.h - allocation helpers, assertions and a growable string buffer.
 *
 * Ownership: tl_x* allocators return memory the caller frees with free().
 * They abort with one message on OOM of *small* bookkeeping allocations;
 * tensor data never goes through them (see storage.h, which fails softly).
 */
#ifndef TL_UTIL_H
#define TL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TL_NORETURN __attribute__((noreturn))
#else
#define TL_PRINTF(a, b)
#define TL_NORETURN
#endif

#define TL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Programmer errors only (broken invariants), never bad input. */
#define TL_ASSERT(cond)                                                        \
    do {                                                                       \
        if (!(cond))                                                           \
            tl_abort(__FILE__, __LINE__, "TL_ASSERT(%s) failed", #cond);       \
    } while (0)

TL_NORETURN void tl_abort(const char *file, int line, const char *fmt, ...)
    TL_PRINTF(3, 4);

void *tl_xmalloc(size_t n);
/* What the block p (of n requested bytes) costs the allocator: its usable
 * size plus the chunk header (glibc), else n plus two words. For the
 * memory ledger (storage.h). */
size_t tl_alloc_cost(const void *p, size_t n);
void *tl_xcalloc(size_t n, size_t size);
void *tl_xrealloc(void *p, size_t n);
char *tl_xstrdup(const char *s);
char *tl_xstrndup(const char *s, size_t n);

/* Growable NUL-terminated byte buffer. Zero-initialise, append, free once. */
typedef struct tl_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
} tl_buf;

void tl_buf_append(tl_buf *b, const char *s, size_t n);
void tl_buf_puts(tl_buf *b, const char *s);
void tl_buf_putc(tl_buf *b, char c);
void tl_buf_printf(tl_buf *b, const char *fmt, ...) TL_PRINTF(2, 3);
void tl_buf_vprintf(tl_buf *b, const char *fmt, va_list ap);
/* v in decimal, as "%" PRId64 prints it (a printf costs ~1 k instructions) */
void tl_buf_put_i64(tl_buf *b, int64_t v);
/* n ints as Python prints a tuple: (2, 3), (4,), () */
void tl_buf_put_tuple(tl_buf *b, const int64_t *v, int n);
/* Returns the buffer's string (never NULL) and leaves b empty; caller frees. */
char *tl_buf_steal(tl_buf *b);
void tl_buf_free(tl_buf *b);
const char *tl_buf_str(const tl_buf *b); /* "" when empty */

/* Checked int64 arithmetic: return false on overflow. */
bool tl_mul_overflow(int64_t a, int64_t b, int64_t *out);
bool tl_add_overflow(int64_t a, int64_t b, int64_t *out);

/* Whether the heap belongs to a checker's allocator: AddressSanitizer's,
 * or valgrind's (RUNNING_ON_VALGRIND). */
bool tl_heap_checked(void);

/* Whether what the process still holds at its end is freed, object by
 * object, before it exits: under AddressSanitizer and valgrind (their leak
 * checks then see every owner free what it owns) and with
 * TLAB_FREE_AT_EXIT=1; otherwise not, as the kernel takes the whole heap
 * back at once (walking it was 4 % of a `tlab check`). */
bool tl_exit_frees(void);

/* A 64-bit hash of n bytes under seed, the string indexes' (strpool, op
 * ids, bindings): a word at a time, every output bit depending on every
 * input byte. Not for anything an attacker must not collide. */
uint64_t tl_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Clock in seconds for per-op deadlines: the calling thread's CPU time
 * (monotonic), so a verdict does not depend on how busy the machine is.
 * tl_now() may run up to 1 ms ahead of it (an upper bound kept from the
 * vDSO clock between real readings: deadlines are late, never early).
 * tl_time_past(when): the real CPU time > when, cheap to poll in loops. */
double tl_now(void);
bool tl_time_past(double when);

/* (The running call's deadline is the runtime context's: context.h. It
 * also honours the two outer limits below, which live here because the
 * loader and the grader, above the runtime, use them too.) */

/* ---- default limits (SPEC 7), written once; the options override them */
#define TL_DEFAULT_TIMEOUT 2.0                  /* --timeout: CPU s per op */
#define TL_DEFAULT_SHEET_TIMEOUT 60.0           /* --sheet-timeout: CPU s per sheet */
#define TL_DEFAULT_MAX_BYTES ((size_t)1 << 30)  /* --max-bytes: live storage */
#define TL_DEFAULT_MAX_SEQ ((int64_t)10000000)  /* longest sequence built */
#define TL_DEFAULT_MAX_SOURCE ((size_t)1 << 20) /* bytes of one op's source */
#define TL_DEFAULT_MAX_DEPTH 64                 /* nesting of one op */

/* The whole run of an op, per thread: every phase after setup (building
 * the parent variant, the op, the write-through probes, the evidence)
 * shares one budget that the interpreter's per-call deadline cannot
 * extend. tl_deadline_run_begin(budget) starts it (0 = none) and returns
 * the one it replaces, for tl_deadline_run_end. tl_deadline_passed() is
 * true once the run's or the sheet's time is up (tl_context_deadline_check
 * adds the running call's own). */
double tl_deadline_run_begin(double budget);
void tl_deadline_run_end(double saved_when);
bool tl_deadline_run_passed(void);
bool tl_deadline_passed(void);

/* A per-sheet CPU budget (--sheet-timeout): one sheet of ops, or one
 * submission, costs at most `seconds` of CPU time. `process` counts the
 * CPU time of every thread (check --jobs N runs one sheet on N threads);
 * otherwise the CPU time of the thread that started it. A thread works
 * under at most one budget (tl_budget_enter; NULL leaves it). The budget
 * is read-only after tl_budget_start, so threads may share it. */
typedef struct tl_budget {
    double seconds;       /* 0 = unlimited */
    double start;         /* CPU clock at the start */
    bool process;
    uint64_t gen;         /* which tl_budget_start (a budget's address may
                             be reused for the next sheet) */
} tl_budget;

void tl_budget_start(tl_budget *b, double seconds, bool process);
void tl_budget_enter(const tl_budget *b);
bool tl_budget_passed(void);  /* this thread's sheet budget is spent */
double tl_budget_seconds(void); /* its size, for messages (0 = none) */

/* The message for a passed deadline: the sheet's budget when it is spent,
 * else the op's ("time limit exceeded (2 s per op; see --timeout)", with
 * op_budget, or the run's budget when op_budget is 0). */
void tl_deadline_message(char *buf, size_t cap, double op_budget);

/* "Did you mean": the candidate nearest to word by optimal-string-alignment
 * distance (insertions, deletions, substitutions, adjacent transpositions),
 * if within 1 edit for words of up to 3 characters, 2 up to 6, else 3;
 * NULL when none is. NULL candidates and word itself are skipped; words
 * and candidates longer than 64 characters never match. */
enum {
    TL_SUGGEST_FOLD_CASE = 1, /* substituted letters compare case-insensitively
                               * (transposed ones still exactly) */
    TL_SUGGEST_FIRST = 2,     /* equally near: the first listed wins (default:
                               * the alphabetically first) */
    TL_SUGGEST_PREFIX = 4,    /* a non-empty word that begins exactly one
                               * candidate names it, however far ("ex" ->
                               * "explain") */
    TL_SUGGEST_NEAR = 8       /* also within CPython's NameError bound for
                               * the pair: 2 * edits <= (len(word) +
                               * len(cand) + 3) / 3 ("argsort" suggests
                               * no "rsqrt", "scatter" no "flatten") */
};
const char *tl_suggest(const char *word, const char *const *cands, size_t n,
                       unsigned flags);

/* strerror(errnum) without strerror's shared buffer (safe in grading
 * threads): the text, in buf or a static string; never NULL. */
const char *tl_strerror(int errnum, char *buf, size_t cap);

/* Whole-file reading (lab sheets, golden tests, fixtures). */
typedef enum tl_read_status {
    TL_READ_OK = 0,
    TL_READ_OPEN,    /* cannot open it; errno says why */
    TL_READ_IO,      /* a read failed; errno says why */
    TL_READ_TOO_BIG, /* longer than max bytes */
    TL_READ_LINK,    /* a symbolic link, and links are not followed */
    TL_READ_NOT_REGULAR /* a FIFO, device, socket or directory */
} tl_read_status;
/* Read the file at path into *text: NUL-terminated, *len bytes before the
 * NUL (it may hold NULs of its own), owned by the caller (free). Stops
 * reading once past max bytes, so a huge file or an endless stream costs
 * no more. On failure *text is NULL. */
tl_read_status tl_read_file(const char *path, size_t max, char **text,
                            size_t *len);
/* The same for a file from an untrusted source (lab sheets, submissions):
 * opened with O_NONBLOCK (a FIFO cannot block the open) and, unless
 * follow_links, O_NOFOLLOW (a link to another file is TL_READ_LINK, never
 * read); anything but a regular file is TL_READ_NOT_REGULAR, unread. */
tl_read_status tl_read_regular_file(const char *path, size_t max, bool follow_links,
                                    char **text, size_t *len);

/* The temporary file of an atomic -o write, removed if a signal (SIGINT,
 * SIGTERM) stops the process before it is renamed into place. One at a
 * time, process-wide. tl_tempfile_make: mkstemp(tmpl) with those signals
 * blocked, then registered (-1 with errno on failure). tl_tempfile_rename:
 * rename it to final and forget it; tl_tempfile_discard: unlink and
 * forget. tl_tempfile_remove_now is async-signal-safe (the handler calls
 * it); tl_tempfile_install_handlers (main) installs that handler, which
 * then dies of the signal, so the shell sees 128 + signal. */
void tl_tempfile_install_handlers(void); /* SIGINT, SIGTERM: remove, then die */
int tl_tempfile_make(char *tmpl);
int tl_tempfile_rename(const char *tmp, const char *final);
void tl_tempfile_discard(const char *tmp);
void tl_tempfile_remove_now(void);

#ifdef __cplusplus
}
#endif

#endif
