/* parse_cache.c - the per-thread cache of parsed sources (parse_cache.h).
 *
 * Keys are the exact text and max_depth: the text is copied and compared
 * byte for byte (an address says nothing: a freed sheet's setup can be
 * followed by another sheet's at the same address). PCACHE_N entries, least
 * recently used out; texts over PCACHE_MAX_TEXT are parsed every time. The
 * cache of a thread is freed when the thread exits (a pthread key's
 * destructor); the main thread's lives until the process ends.
 */
#include "parse_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

#define PCACHE_N 8
#define PCACHE_MAX_TEXT ((size_t)64 << 10)

typedef struct entry {
    char *text;
    size_t len;
    int max_depth;
    tl_ast *ast;      /* NULL: empty slot */
    uint64_t used;    /* last use, for LRU */
} entry;

typedef struct cache {
    entry e[PCACHE_N];
    uint64_t tick;
} cache;

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void drop(void *p)
{
    cache *c = p;
    for (int i = 0; i < PCACHE_N; i++) {
        tl_ast_free(c->e[i].ast);
        free(c->e[i].text);
    }
    free(c);
}

static void make_key(void)
{
    if (pthread_key_create(&key, drop) != 0)
        abort();
}

static cache *get(void)
{
    pthread_once(&once, make_key);
    cache *c = pthread_getspecific(key);
    if (!c) {
        c = tl_xcalloc(1, sizeof *c);
        pthread_setspecific(key, c);
    }
    return c;
}

int tl_parse_cached(const char *text, size_t len, int max_depth, tl_ast **out,
                    tl_error *err)
{
    if (len > PCACHE_MAX_TEXT)
        return tl_parse(text, len, max_depth, out, err);
    cache *c = get();
    entry *victim = &c->e[0];
    for (int i = 0; i < PCACHE_N; i++) {
        entry *e = &c->e[i];
        if (e->ast && e->len == len && e->max_depth == max_depth &&
            memcmp(e->text, text, len) == 0) {
            e->used = ++c->tick;
            *out = tl_ast_retain(e->ast);
            return 0;
        }
        if (!e->ast || (victim->ast && e->used < victim->used))
            victim = e;
    }
    if (tl_parse(text, len, max_depth, out, err) < 0)
        return -1;
    tl_ast_free(victim->ast);
    free(victim->text);
    victim->text = tl_xmalloc(len + 1);
    memcpy(victim->text, text, len);
    victim->text[len] = '\0';
    victim->len = len;
    victim->max_depth = max_depth;
    victim->ast = tl_ast_retain(*out);
    victim->used = ++c->tick;
    return 0;
}
