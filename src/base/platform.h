/* platform.h - what the target system offers, as compile-time TL_ macros.
 *
 * The one place that knows the targets apart: code asks `#if TL_HAVE_X`,
 * never `#ifdef __wasi__`. Two targets today:
 *   - Linux (glibc, dynamic or `make tlab-static`): everything;
 *   - wasm32-wasi (`make wasm`, wasi-libc 2022 under node:wasi or a
 *     browser shim): no threads, no mmap/madvise, no signals, no
 *     processes (fork/exec), no glibc malloc tuning, no file modes
 *     (umask/chmod/fchmod), realpath or mkstemp.
 * TL_STATIC_BINARY (set by the tlab-static rule) marks a statically linked
 * glibc binary: it must not call glibc's NSS functions (getpwnam & co.
 * would dlopen shared libraries at run time).
 *
 * Without threads this header also supplies the few pthread calls tlab
 * makes (once, keys, mutexes, self/equal) for the one thread there is, so
 * the per-thread caches and locks compile unchanged; pthread_create does
 * not exist there: callers check TL_HAVE_THREADS (grade --jobs N > 1 says
 * it is unavailable in this build).
 */
#ifndef TL_PLATFORM_H
#define TL_PLATFORM_H

#if defined(__wasi__)
#define TL_HAVE_THREADS 0
#define TL_HAVE_MMAP 0
#define TL_HAVE_SIGNALS 0
#define TL_HAVE_PROCESSES 0
#define TL_HAVE_GLIBC_MALLOC 0
#define TL_HAVE_FILE_MODES 0
#define TL_PLATFORM_NAME "wasm32-wasi"
#else
#define TL_HAVE_THREADS 1
#define TL_HAVE_MMAP 1
#define TL_HAVE_SIGNALS 1
#define TL_HAVE_PROCESSES 1
#define TL_HAVE_FILE_MODES 1
#define TL_PLATFORM_NAME "linux"
#if defined(__GLIBC__)
#define TL_HAVE_GLIBC_MALLOC 1
#else
#define TL_HAVE_GLIBC_MALLOC 0
#endif
#endif

#ifdef TL_STATIC_BINARY
#define TL_HAVE_NSS 0
#else
#define TL_HAVE_NSS TL_HAVE_PROCESSES
#endif

#if TL_HAVE_THREADS
#include <pthread.h>
#else
/* one thread: once runs once, a key is a slot, a mutex is never contended */
typedef int pthread_once_t;
typedef struct { void *value; } *pthread_key_t;
typedef int pthread_mutex_t;
typedef int pthread_t;
#define PTHREAD_ONCE_INIT 0
#define PTHREAD_MUTEX_INITIALIZER 0

static inline int pthread_once(pthread_once_t *once, void (*fn)(void))
{
    if (!*once) {
        *once = 1;
        fn();
    }
    return 0;
}

static inline int pthread_key_create(pthread_key_t *key, void (*dtor)(void *))
{
    (void)dtor; /* thread exit never comes: the process exits */
    static struct { void *value; } slots[16];
    static int used;
    if (used == (int)(sizeof slots / sizeof *slots))
        return 1;
    *key = (pthread_key_t)&slots[used++];
    return 0;
}

static inline void *pthread_getspecific(pthread_key_t key) { return key->value; }

static inline int pthread_setspecific(pthread_key_t key, const void *v)
{
    key->value = (void *)v;
    return 0;
}

static inline int pthread_mutex_init(pthread_mutex_t *m, const void *attr)
{
    (void)attr;
    *m = 0;
    return 0;
}
static inline int pthread_mutex_destroy(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_lock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_unlock(pthread_mutex_t *m) { (void)m; return 0; }
static inline pthread_t pthread_self(void) { return 1; }
static inline int pthread_equal(pthread_t a, pthread_t b) { return a == b; }
#endif

#endif /* TL_PLATFORM_H */
