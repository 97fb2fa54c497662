/* rusage.c - run a command and print its wall time and peak RSS to stderr,
 * for bench/run.sh on machines without GNU time (/usr/bin/time -v).
 *
 * Usage: rusage COMMAND [ARG]...
 * Prints "wall_s=<seconds> maxrss_kb=<KiB> status=<exit code>" on stderr
 * after the command ends and exits with the command's status (128+signal
 * when it was killed). ru_maxrss of RUSAGE_CHILDREN is the largest resident
 * set of any waited-for child, which here is the one command.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: rusage COMMAND [ARG]...\n", stderr);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage: fork");
        return 126;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("rusage: exec");
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0) {
        perror("rusage: waitpid");
        return 126;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    fprintf(stderr, "wall_s=%.6f maxrss_kb=%ld status=%d\n",
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
            ru.ru_maxrss, code);
    return code;
}
