/* arena.c - bump allocation in blocks freed together (see arena.h).
 *
 * The arena is a singly linked list of blocks; allocations are 16-byte
 * aligned bumps inside the head block, and a request larger than a block
 * gets a block of its own, linked behind the head so the head stays the
 * bump target. tl_arena_free walks the list once.
 */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Blocks grow from FIRST_BLOCK to BLOCK_SIZE, doubling: most arenas are
 * one short expression's tree (a few hundred bytes), and a fixed 16 KiB
 * first block put each of them on pages of its own (a page fault per
 * parse at start-up, 40 of tlab check's 190). */
#define FIRST_BLOCK ((size_t)512)
#define BLOCK_SIZE ((size_t)16 << 10)

struct tl_arena_block {
    struct tl_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *tl_arena_alloc(tl_arena_block **arena, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    tl_arena_block *b = *arena;
    if (!b || b->cap - b->used < n) {
        size_t grow = b ? (b->cap < BLOCK_SIZE ? b->cap * 2 : BLOCK_SIZE)
                        : FIRST_BLOCK;
        size_t cap = n > grow ? n : grow;
        tl_arena_block *nb = tl_xmalloc(sizeof *nb + cap);
        nb->used = 0;
        nb->cap = cap;
        if (b && n > grow) {
            nb->next = b->next;
            b->next = nb;
            nb->used = n;
            memset(nb->data, 0, n);
            return nb->data;
        }
        nb->next = b;
        *arena = nb;
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void tl_arena_free(tl_arena_block *arena)
{
    while (arena) {
        tl_arena_block *next = arena->next;
        free(arena);
        arena = next;
    }
}
