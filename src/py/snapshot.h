/* snapshot.h - what a setup left behind, kept once and copied for each run.
 *
 * Every run of an op starts from a fresh interpreter with the setup run
 * afresh (SPEC 4: ops never see each other's writes). A setup is
 * deterministic, so the verdict layer may run it once per thread, keep its
 * globals here, and give each later run deep copies that behave exactly as
 * a fresh setup's values would: new storages with the same bytes, tensors
 * with the same geometry, dtype, version count, grad flags and view link
 * (x._base), new lists; immutable values (numbers, strings, dtypes,
 * modules, functions) are shared. Aliasing is kept: names (or a view and
 * its base) over one storage get copies over one new storage, one object
 * bound to two names is one copy, and so is a list referenced twice.
 *
 * tl_snapshot_take refuses (NULL) whatever it cannot copy faithfully:
 * closures, numpy arrays, storage objects, exceptions, bound methods,
 * tensors off the CPU or with a graph or a gradient, borrowed or pinned
 * storages, more than TL_SNAPSHOT_MAX_BYTES of tensor data, or a setup that
 * left grad mode off. The caller then runs the setup every time.
 *
 * The thread state a setup can change is kept too: the random generator
 * and the default dtype; tl_snapshot_copy sets them as the setup left them.
 *
 * Ownership: a snapshot holds references to the values it was given (never
 * handed out again: only copies and immutable values are) and names of its
 * own. Its storages are off the storage ledger (tl_storage_uncharge): the
 * holder charges their tl_snapshot_bytes as held memory (storage.h
 * tl_alloc_held_add) on the thread that took it, and gives them back when
 * it frees the snapshot there (the setup cache, lab/verdict.c, also drops
 * it when the held bytes alone made a run fail). A snapshot is used
 * by the thread that took it (refcounts are not atomic); any thread may
 * free it once that thread is done.
 */
#ifndef TL_SNAPSHOT_H
#define TL_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_SNAPSHOT_MAX_BYTES ((size_t)16 << 20)

typedef struct tl_snapshot tl_snapshot;

/* n named values and this thread's generator and default dtype, with the
 * caller's tag (the interpreter's run count); NULL when refused. */
tl_snapshot *tl_snapshot_take(size_t n, const char *const *names, tl_value *const *values,
                              uint64_t tag);
size_t tl_snapshot_size(const tl_snapshot *s);
/* Bytes of tensor storage it keeps (off the storage ledger); 0 for NULL. */
size_t tl_snapshot_bytes(const tl_snapshot *s);
const char *tl_snapshot_name(const tl_snapshot *s, size_t i);
uint64_t tl_snapshot_tag(const tl_snapshot *s);
/* Copies of the kept values into out[0..size) (new references), and the
 * thread state set as the setup left it; -1 with err set (a memory limit)
 * and nothing made. */
int tl_snapshot_copy(const tl_snapshot *s, tl_value **out, tl_error *err);
void tl_snapshot_free(tl_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif
