/* freelist.c - per-thread free lists of same-size blocks (freelist.h).
 *
 * Invariants: a list is touched only by its own thread; every list that
 * ever kept a block is registered in its thread's `lists` and emptied by
 * the one pthread key's destructor when the thread ends (the key's value
 * is set, so the destructor runs), or by atexit for the thread that calls
 * exit when tl_exit_frees (util.h) wants the heap freed. A list that
 * cannot be registered keeps nothing.
 */
#include "freelist.h"

#include "platform.h"
#include <stdlib.h>
#include <string.h>

#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#define NO_CACHE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_CACHE 1
#endif
#endif

#define MAX_LISTS 16

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool key_ok;
static _Thread_local tl_freelist *lists[MAX_LISTS];
static _Thread_local int nlists;

static void drain(tl_freelist *fl)
{
    while (fl->head) {
        void *next;
        memcpy(&next, fl->head, sizeof next);
        free(fl->head);
        fl->head = next;
    }
    fl->n = 0;
}

static void drain_all(void *unused)
{
    (void)unused;
    for (int i = 0; i < nlists; i++) {
        drain(lists[i]);
        lists[i]->armed = false;
    }
    nlists = 0;
}

static void drain_at_exit(void)
{
    if (tl_exit_frees())
        drain_all(NULL);
}

static void init(void)
{
    key_ok = pthread_key_create(&key, drain_all) == 0;
    if (key_ok)
        atexit(drain_at_exit);
}

void *tl_freelist_pop(tl_freelist *fl)
{
    void *p = fl->head;
    if (p) {
        memcpy(&fl->head, p, sizeof fl->head);
        fl->n--;
    }
    return p;
}

void tl_freelist_push(tl_freelist *fl, void *p, int cap)
{
#ifdef NO_CACHE
    (void)cap;
    (void)fl;
    free(p);
    return;
#else
    if (fl->n >= cap) {
        free(p);
        return;
    }
    if (!fl->armed) {
        pthread_once(&once, init);
        if (!key_ok || nlists == MAX_LISTS || pthread_setspecific(key, (void *)1) != 0) {
            free(p);
            return;
        }
        lists[nlists++] = fl;
        fl->armed = true;
    }
    memcpy(p, &fl->head, sizeof fl->head);
    fl->head = p;
    fl->n++;
#endif
}
