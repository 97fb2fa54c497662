/* hmac.h - HMAC-SHA-256 (RFC 2104 over FIPS 180-4 SHA-256), as used for
 * per-student lab variants: which variant a student gets and the tag that
 * binds a sheet to (lab, student, variant).
 *
 * Ownership: nothing is allocated outside a call; the caller owns out.
 */
#ifndef TL_HMAC_H
#define TL_HMAC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HMAC-SHA-256 of msg under key (any length: a key longer than 64 bytes
 * is hashed first, as RFC 2104 says) into out[32]. */
void tl_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t msglen,
                    unsigned char out[32]);
/* The same as lower-case hex, cut to the first nhex digits (1..64) and
 * NUL-terminated: hex must hold nhex + 1 bytes. */
void tl_hmac_sha256_hex(const void *key, size_t keylen, const void *msg, size_t msglen,
                        char *hex, size_t nhex);

#ifdef __cplusplus
}
#endif

#endif
