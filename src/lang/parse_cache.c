/* parse_cache.c - the per-thread cache of parsed sources (parse_cache.h).
 *
 * Keys are the exact text and max_depth: the text is copied and compared
 * byte for byte (an address says nothing: a freed sheet's setup can be
 * followed by another sheet's at the same address), after a 32-bit hash
 * that picks the bucket. Up to PCACHE_N entries, least recently used out:
 * SPEC's 1000 ops of a sheet, its setup and classify block all fit, so the
 * syntax check of every op and the op's later runs never thrash (a run in
 * sheet order through an LRU smaller than the sheet misses every time).
 * Texts over PCACHE_MAX_TEXT are parsed every time. The entry array grows
 * as needed; the cache of a thread is freed when the thread exits (a
 * pthread key's destructor); the main thread's lives until the process
 * ends.
 */
#include "parse_cache.h"

#include "platform.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

#define PCACHE_N 1024
#define PCACHE_BUCKETS 2048 /* a power of two */
#define PCACHE_MAX_TEXT ((size_t)64 << 10)

typedef struct entry {
    char *text;
    size_t len;
    int max_depth;
    uint32_t hash;
    tl_ast *ast;
    uint64_t used;    /* last use, for LRU */
    int next;         /* the bucket's next entry + 1; 0 ends it */
} entry;

typedef struct cache {
    entry *e;
    int n, cap;
    int bucket[PCACHE_BUCKETS]; /* first entry + 1; 0: empty */
    uint64_t tick;
} cache;

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void drop(void *p)
{
    cache *c = p;
    for (int i = 0; i < c->n; i++) {
        tl_ast_free(c->e[i].ast);
        free(c->e[i].text);
    }
    free(c->e);
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

/* Eight bytes a step (every lookup hashes its whole text): each word is
 * mixed in with a multiply and a rotation, the tail bytes one by one. */
static uint32_t hash_of(const char *text, size_t len, int max_depth)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len ^ ((uint64_t)(unsigned)max_depth << 32);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, text + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h = (h << 29) | (h >> 35);
    }
    for (; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001B3ull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

/* an entry to fill: a new one, or the least recently used taken out of
 * its bucket */
static entry *victim(cache *c)
{
    if (c->n < PCACHE_N) {
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 64;
            c->e = tl_xrealloc(c->e, (size_t)c->cap * sizeof *c->e);
        }
        entry *v = &c->e[c->n++];
        memset(v, 0, sizeof *v);
        return v;
    }
    int lru = 0;
    for (int i = 1; i < c->n; i++)
        if (c->e[i].used < c->e[lru].used)
            lru = i;
    entry *v = &c->e[lru];
    int *link = &c->bucket[v->hash & (PCACHE_BUCKETS - 1)];
    while (*link != lru + 1)
        link = &c->e[*link - 1].next;
    *link = v->next;
    tl_ast_free(v->ast);
    free(v->text);
    memset(v, 0, sizeof *v);
    return v;
}

int tl_parse_cached(const char *text, size_t len, int max_depth, tl_ast **out,
                    tl_error *err)
{
    if (len > PCACHE_MAX_TEXT)
        return tl_parse(text, len, max_depth, out, err);
    cache *c = get();
    uint32_t h = hash_of(text, len, max_depth);
    int *head = &c->bucket[h & (PCACHE_BUCKETS - 1)];
    for (int k = *head; k; k = c->e[k - 1].next) {
        entry *e = &c->e[k - 1];
        if (e->hash == h && e->len == len && e->max_depth == max_depth &&
            memcmp(e->text, text, len) == 0) {
            e->used = ++c->tick;
            *out = tl_ast_retain(e->ast);
            return 0;
        }
    }
    if (tl_parse(text, len, max_depth, out, err) < 0)
        return -1;
    entry *v = victim(c);
    head = &c->bucket[h & (PCACHE_BUCKETS - 1)]; /* victim() may unlink from it */
    v->text = tl_xmalloc(len + 1);
    memcpy(v->text, text, len);
    v->text[len] = '\0';
    v->len = len;
    v->max_depth = max_depth;
    v->hash = h;
    v->ast = tl_ast_retain(*out);
    v->used = ++c->tick;
    v->next = *head;
    *head = (int)(v - c->e) + 1;
    return 0;
}
