/* arena.h - bump allocation in blocks that are freed together: the syntax
 * tree of a parsed source (lang/ast.c) and the YAML tree of a lab file
 * (lab/lab.c), both built node by node and dropped at once.
 *
 * Ownership: the arena (a list head, NULL when empty) owns every block;
 * tl_arena_free releases them all. Allocations are zeroed and 16-byte
 * aligned and never fail (they abort on out of memory, like tl_xmalloc).
 */
#ifndef TL_ARENA_H
#define TL_ARENA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_arena_block tl_arena_block;

/* n zeroed bytes in *arena (a NULL head starts one). */
void *tl_arena_alloc(tl_arena_block **arena, size_t n);
/* Every block of the arena; NULL is fine. */
void tl_arena_free(tl_arena_block *arena);

#ifdef __cplusplus
}
#endif

#endif
