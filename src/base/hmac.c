/* hmac.c - HMAC-SHA-256 (RFC 2104): H((K ^ opad) || H((K ^ ipad) || msg)),
 * K the key zero-padded to the 64-byte block (hashed first when longer).
 * Built on the one-shot tl_sha256 (sha256.h): each pass hashes one buffer
 * of block + message, so a call allocates 64 + msglen bytes and frees them
 * before it returns. Checked against the RFC 4231 vectors in
 * tests/check_hmac.
 */
#include "hmac.h"

#include "sha256.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void tl_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t msglen,
                    unsigned char out[32])
{
    unsigned char k[64] = {0};
    if (keylen > sizeof k)
        tl_sha256(key, keylen, k);
    else if (keylen)
        memcpy(k, key, keylen);
    unsigned char *buf = tl_xmalloc(64 + (msglen > 32 ? msglen : 32));
    for (int i = 0; i < 64; i++)
        buf[i] = k[i] ^ 0x36;
    if (msglen)
        memcpy(buf + 64, msg, msglen);
    unsigned char inner[32];
    tl_sha256(buf, 64 + msglen, inner);
    for (int i = 0; i < 64; i++)
        buf[i] = k[i] ^ 0x5c;
    memcpy(buf + 64, inner, 32);
    tl_sha256(buf, 64 + 32, out);
    free(buf);
}

void tl_hmac_sha256_hex(const void *key, size_t keylen, const void *msg, size_t msglen,
                        char *hex, size_t nhex)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char mac[32];
    tl_hmac_sha256(key, keylen, msg, msglen, mac);
    if (nhex > 64)
        nhex = 64;
    for (size_t i = 0; i < nhex; i++)
        hex[i] = digits[(mac[i / 2] >> (i % 2 ? 0 : 4)) & 0xF];
    hex[nhex] = 0;
}
