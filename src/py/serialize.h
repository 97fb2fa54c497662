/* serialize.h - torch.save and torch.load over the run's in-memory files
 * (memfs.h).
 *
 * Ownership: new references out, or NULL with err set.
 */
#ifndef TL_SERIALIZE_H
#define TL_SERIALIZE_H

#include <stddef.h>

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_value *tl_serialize_save(tl_value *self, const struct tl_args *a, tl_error *err);
tl_value *tl_serialize_load(tl_value *self, const struct tl_args *a, tl_error *err);

/* The size torch 2.x's zip writer gives a checkpoint whose archive folder
 * is `stem`, whose data.pkl has pkl bytes and whose storages (in key
 * order "0", "1", ...) have the given byte counts (tests). */
size_t tl_serialize_zip_size(const char *stem, size_t pkl, const size_t *storage_bytes,
                             size_t nstorages);

#ifdef __cplusplus
}
#endif

#endif
