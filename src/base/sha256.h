/* sha256.h - SHA-256 (FIPS 180-4) of a byte string, as lower-case hex: the
 * digest that scorecards record for the lab file they graded.
 *
 * Ownership: nothing is allocated; the caller owns hex[65].
 */
#ifndef TL_SHA256_H
#define TL_SHA256_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lower-case hex SHA-256 of data into hex[65] (NUL-terminated). */
void tl_sha256_hex(const void *data, size_t len, char hex[65]);
/* The same with the portable block function only (tests compare the two;
 * tl_sha256_hex uses the CPU's SHA instructions when it has them). */
void tl_sha256_hex_portable(const void *data, size_t len, char hex[65]);
/* The 32-byte digest itself (hmac.c builds HMAC-SHA-256 on it). */
void tl_sha256(const void *data, size_t len, unsigned char out[32]);

#ifdef __cplusplus
}
#endif

#endif
