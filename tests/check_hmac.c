/* check_hmac.c - HMAC-SHA-256 (src/base/hmac.c) against the RFC 4231 test
 * vectors (cases 1-7; case 5's 128-bit truncation through
 * tl_hmac_sha256_hex), and the raw tl_sha256 against its hex twin. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmac.h"
#include "sha256.h"

static void unhex(const char *h, unsigned char *out, size_t *n)
{
    size_t k = 0;
    for (; h[0] && h[1]; h += 2) {
        unsigned v;
        sscanf(h, "%2x", &v);
        out[k++] = (unsigned char)v;
    }
    *n = k;
}

static void expect(const char *keyhex, const char *msg, size_t msglen, const char *mac)
{
    unsigned char key[256];
    size_t kl;
    unhex(keyhex, key, &kl);
    char hex[65];
    tl_hmac_sha256_hex(key, kl, msg, msglen, hex, strlen(mac));
    ck_assert_str_eq(hex, mac);
}

START_TEST(test_rfc4231)
{
    /* 1 */
    expect("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There", 8,
           "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    /* 2 */
    expect("4a656665", "what do ya want for nothing?", 28,
           "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    /* 3 */
    char d[50];
    memset(d, 0xdd, sizeof d);
    expect("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", d, sizeof d,
           "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    /* 4 */
    char c[50];
    memset(c, 0xcd, sizeof c);
    expect("0102030405060708090a0b0c0d0e0f10111213141516171819", c, sizeof c,
           "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    /* 5: truncated to 128 bits */
    expect("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", "Test With Truncation", 20,
           "a3b6167473100ee06e0c796c2955552b");
    /* 6 and 7: a 131-byte key (hashed first) */
    char aa[2 * 131 + 1];
    for (int i = 0; i < 131; i++)
        memcpy(aa + 2 * i, "aa", 2);
    aa[2 * 131] = 0;
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    expect(aa, m6, strlen(m6),
           "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const char *m7 = "This is a test using a larger than block-size key and a larger "
                     "than block-size data. The key needs to be hashed before being "
                     "used by the HMAC algorithm.";
    expect(aa, m7, strlen(m7),
           "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}
END_TEST

START_TEST(test_raw_digest)
{
    static const char *inputs[] = {"", "abc", "a longer input that spans more than one "
                                   "sixty-four byte block of SHA-256 input data"};
    for (size_t i = 0; i < 3; i++) {
        unsigned char raw[32];
        char hex[65], from_raw[65];
        tl_sha256(inputs[i], strlen(inputs[i]), raw);
        tl_sha256_hex(inputs[i], strlen(inputs[i]), hex);
        for (int k = 0; k < 32; k++)
            snprintf(from_raw + 2 * k, 3, "%02x", raw[k]);
        ck_assert_str_eq(from_raw, hex);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hmac");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_rfc4231);
    tcase_add_test(tc, test_raw_digest);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
