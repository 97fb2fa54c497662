/* strpool.c - interned strings (see strpool.h).
 *
 * An open-addressing hash table (tl_hash_bytes, linear probing, power-of-two
 * size, at most half full) of pointers into an arena (arena.h) that holds
 * the texts with their lengths; entries are never removed, so a returned
 * pointer is stable until the pool is freed. One mutex guards the table
 * and the arena.
 */
#include "strpool.h"

#include "platform.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "util.h"

typedef struct entry {
    uint64_t hash;
    size_t len;
    const char *text; /* NULL: an empty slot */
} entry;

struct tl_strpool {
    pthread_mutex_t mu;
    entry *slots;
    size_t cap, count, text_bytes;
    tl_arena_block *arena;
};

tl_strpool *tl_strpool_new(void)
{
    tl_strpool *p = tl_xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    p->cap = 64;
    p->slots = tl_xcalloc(p->cap, sizeof *p->slots);
    return p;
}

static void grow(tl_strpool *p)
{
    size_t cap = p->cap * 2;
    entry *slots = tl_xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->slots[i].text)
            continue;
        size_t j = (size_t)p->slots[i].hash & (cap - 1);
        while (slots[j].text)
            j = (j + 1) & (cap - 1);
        slots[j] = p->slots[i];
    }
    free(p->slots);
    p->slots = slots;
    p->cap = cap;
}

const char *tl_strpool_intern_n(tl_strpool *p, const char *s, size_t n)
{
    uint64_t h = tl_hash_bytes(s, n, 0);
    pthread_mutex_lock(&p->mu);
    size_t j = (size_t)h & (p->cap - 1);
    for (; p->slots[j].text; j = (j + 1) & (p->cap - 1)) {
        const entry *e = &p->slots[j];
        if (e->hash == h && e->len == n && memcmp(e->text, s, n) == 0) {
            const char *t = e->text;
            pthread_mutex_unlock(&p->mu);
            return t;
        }
    }
    char *t = tl_arena_alloc(&p->arena, n + 1); /* zeroed: NUL-terminated */
    memcpy(t, s, n);
    p->slots[j] = (entry){.hash = h, .len = n, .text = t};
    p->count++;
    p->text_bytes += n + 1;
    if (p->count * 2 > p->cap)
        grow(p);
    pthread_mutex_unlock(&p->mu);
    return t;
}

const char *tl_strpool_intern(tl_strpool *p, const char *s)
{
    return s ? tl_strpool_intern_n(p, s, strlen(s)) : NULL;
}

size_t tl_strpool_count(tl_strpool *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->count;
    pthread_mutex_unlock(&p->mu);
    return n;
}

size_t tl_strpool_bytes(tl_strpool *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->text_bytes + p->cap * sizeof *p->slots;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void tl_strpool_free(tl_strpool *p)
{
    if (!p)
        return;
    tl_arena_free(p->arena);
    free(p->slots);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
