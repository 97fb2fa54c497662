/* check_cuda.c - the CUDA backend's device probe (tl_backend_cuda_probe,
 * implemented by cuda/backend_cuda.cu).
 *
 * Built only with the CUDA backend (HAVE_CUDA). Without a usable GPU the
 * whole program is skipped (exit 77): there is nothing to check that the
 * stub build does not already show. With a GPU it checks that the device
 * count is stable, that the probe's line agrees with it, and that hiding
 * the GPUs (CUDA_VISIBLE_DEVICES="", cudaErrorNoDevice) or showing only the
 * first one is seen by a fresh process as 0 or 1 devices, never as a failure.
 * The fresh processes are this program re-executed with --print-count.
 *
 * CK_NOFORK: the CUDA runtime must not be used across fork(); timeouts are
 * long because the first CUDA call initialises the driver (seconds).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"

/* the runtime's probe (backend.h), split in its two answers */
static int tl_cuda_device_count(void)
{
    return tl_backend_cuda_probe(NULL);
}

static const char *tl_cuda_describe(void)
{
    const char *why;
    (void)tl_backend_cuda_probe(&why);
    return why;
}

/* Runs this program with --print-count and CUDA_VISIBLE_DEVICES=visible
 * (NULL: the environment as it is) in a fresh process; returns the device
 * count it printed and copies its description line into desc. */
static int count_in_child(const char *visible, char *desc, size_t desc_size)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* Only exec here: the parent's CUDA state is not usable after fork. */
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (visible)
            setenv("CUDA_VISIBLE_DEVICES", visible, 1);
        execl("/proc/self/exe", "check_cuda", "--print-count", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char out[512] = {0};
    size_t len = 0;
    ssize_t n;
    while (len + 1 < sizeof out && (n = read(fds[0], out + len, sizeof out - 1 - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        len += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "child with CUDA_VISIBLE_DEVICES='%s' failed (status %d)",
                  visible ? visible : "(inherited)", status);
    char *nl = strchr(out, '\n');
    ck_assert_msg(nl != NULL, "child printed no count: '%s'", out);
    *nl = '\0';
    int count = atoi(out);
    snprintf(desc, desc_size, "%s", nl + 1);
    char *end = strchr(desc, '\n');
    if (end)
        *end = '\0';
    return count;
}

/* ---- core: the count and the description agree */

START_TEST(test_count_stable)
{
    int n = tl_cuda_device_count();
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(tl_cuda_device_count(), n);
}
END_TEST

START_TEST(test_describe_matches_count)
{
    int n = tl_cuda_device_count();
    char want[64];
    snprintf(want, sizeof want, "built, %d device%s (", n, n == 1 ? "" : "s");
    const char *d = tl_cuda_describe();
    ck_assert_ptr_nonnull(d);
    ck_assert_msg(strncmp(d, want, strlen(want)) == 0, "describe '%s' does not start with '%s'", d,
                  want);
    ck_assert_msg(strstr(d, "sm_") != NULL, "describe '%s' names no compute capability", d);
    ck_assert_str_eq(tl_cuda_describe(), d); /* stable */
}
END_TEST

START_TEST(test_fresh_process_agrees)
{
    char desc[256];
    ck_assert_int_eq(count_in_child(NULL, desc, sizeof desc), tl_cuda_device_count());
    ck_assert_str_eq(desc, tl_cuda_describe());
}
END_TEST

/* ---- limits: hiding devices */

START_TEST(test_first_device_only)
{
    char desc[256];
    ck_assert_int_eq(count_in_child("0", desc, sizeof desc), 1);
    ck_assert_msg(strncmp(desc, "built, 1 device (", 17) == 0, "describe '%s'", desc);
}
END_TEST

/* ---- errors: "no GPU" answers of the runtime are not failures */

START_TEST(test_hidden_devices_are_no_device)
{
    char desc[256];
    ck_assert_int_eq(count_in_child("", desc, sizeof desc), 0);
    ck_assert_str_eq(desc, "built, no device");
}
END_TEST

START_TEST(test_bad_ordinal_is_no_device)
{
    char desc[256];
    /* An ordinal past the last device hides them all, like "". */
    ck_assert_int_eq(count_in_child("4096", desc, sizeof desc), 0);
    ck_assert_str_eq(desc, "built, no device");
}
END_TEST

static Suite *tl_cuda_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_count_stable);
    tcase_add_test(tc, test_describe_matches_count);
    tcase_add_test(tc, test_fresh_process_agrees);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_first_device_only);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hidden_devices_are_no_device);
    tcase_add_test(tc, test_bad_ordinal_is_no_device);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--print-count") == 0) {
        printf("%d\n%s\n", tl_cuda_device_count(), tl_cuda_describe());
        return 0;
    }
    int n = tl_cuda_device_count();
    if (n == 0) {
        printf("SKIP: no CUDA device (%s)\n", tl_cuda_describe());
        return 77;
    }
    SRunner *sr = srunner_create(tl_cuda_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
