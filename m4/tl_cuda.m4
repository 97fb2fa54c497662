# tl_cuda.m4 - optional CUDA backend probe (the shape of yaksa's subconfigure.m4).
#
# --with-cuda=auto|yes|no|PATH   auto (default): use CUDA when nvcc works, else
#                                fall back to the CPU-only build, saying why;
#                                yes/PATH: fail loudly when it does not work.
#                                nvcc is looked up in PATH/bin, $PATH,
#                                $CUDA_HOME/bin, $CUDA_PATH/bin and
#                                /usr/local/cuda/bin (or taken from NVCC=);
#                                the toolkit is the one nvcc belongs to
#                                (m4/tl_cuda_prefix.sh: PATH, nvcc --dryrun's
#                                TOP=, CUDA_HOME, CUDA_PATH), not the parent
#                                of a wrapper's directory. With auto, a found
#                                nvcc that cannot be used is a warning.
# --with-cuda-arch=LIST          compute capabilities, e.g. "80 90" (each gets
#                                SASS; the last also gets PTX for newer GPUs),
#                                or "native" (the GPU of the build machine).
#                                Default: those of 75 80 86 90 that nvcc supports.
# --with-cudart=static|shared    link the CUDA runtime statically (default:
#                                the binary then needs only libc, libm,
#                                libstdc++ and the driver, so a build can be
#                                carried to a GPU machine) or as libcudart.so.
#
# The kernels are compiled with --fmad=false (a*b+c must round twice, as on
# the CPU) and ptxas warnings for spills and local memory (Makefile.am).
#
# The probe is real: nvcc compiles a __global__ function for the chosen
# architectures, and the C compiler links that object with -lcudart -lstdc++,
# which is exactly how libtlab.a's CUDA objects reach the tlab binary.
#
# Sets: AM_CONDITIONAL HAVE_CUDA, AC_DEFINE TL_HAVE_CUDA, and substitutes NVCC,
#       NVCCFLAGS, NVCC_GENCODE, CUDA_CPPFLAGS, CUDA_LDFLAGS, CUDA_LIBS;
#       shell variables tl_cuda_enabled=yes|no, tl_cuda_arch_list, tl_cuda_summary.
AC_DEFUN([TL_CHECK_CUDA], [
  AC_ARG_VAR([NVCC], [CUDA compiler (default: nvcc found under --with-cuda=PATH, in PATH, or in /usr/local/cuda/bin)])
  AC_ARG_VAR([NVCCFLAGS], [flags for the CUDA compiler (default: -O2 -g)])
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=auto|yes|no|PATH],
      [build the CUDA backend; PATH is the toolkit prefix (default: auto)])],
    [], [with_cuda=auto])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST],
      [compute capabilities to build for, e.g. "80 90", or "native" (default: those of 75 80 86 90 that nvcc supports)])],
    [tl_cuda_arch_given=yes], [with_cuda_arch=""; tl_cuda_arch_given=no])

  AC_ARG_WITH([cudart],
    [AS_HELP_STRING([--with-cudart=static|shared],
      [link the CUDA runtime statically or as a shared library (default: static)])],
    [], [with_cudart=static])
  case "$with_cudart" in
    static|shared) ;;
    *) AC_MSG_ERROR([--with-cudart=$with_cudart: expected static or shared]) ;;
  esac
  AS_IF([test "x${NVCCFLAGS+set}" != xset], [NVCCFLAGS="-O2 -g"])

  tl_cuda_enabled=no
  tl_cuda_summary=""
  tl_cuda_arch_list=""
  tl_cuda_prefix=""
  tl_cuda_why=""
  case "$with_cuda" in
    no|yes|auto) ;;
    "") with_cuda=yes ;;
    *) tl_cuda_prefix="$with_cuda"; with_cuda=yes
       AS_IF([test -d "$tl_cuda_prefix"], [],
         [AC_MSG_ERROR([--with-cuda=$tl_cuda_prefix: no such directory (expected a CUDA toolkit prefix such as /usr/local/cuda)])]) ;;
  esac
  dnl a loud failure needs a reason; an explicit arch list must work too.
  tl_cuda_loud=no
  AS_IF([test "x$with_cuda" = xyes || test "x$tl_cuda_arch_given" = xyes], [tl_cuda_loud=yes])

  AS_IF([test "x$with_cuda" != xno], [
    dnl ---- find nvcc ----
    AS_IF([test -z "$NVCC"], [
      AS_IF([test -n "$tl_cuda_prefix"],
        [AC_PATH_PROG([NVCC], [nvcc], [no], [$tl_cuda_prefix/bin])],
        [tl_cuda_search="$PATH"
         for tl_d in "$CUDA_HOME" "$CUDA_PATH"; do
           AS_IF([test -n "$tl_d"], [tl_cuda_search="$tl_cuda_search$PATH_SEPARATOR$tl_d/bin"])
         done
         AC_PATH_PROG([NVCC], [nvcc], [no], [$tl_cuda_search$PATH_SEPARATOR/usr/local/cuda/bin])])
    ])
    AS_IF([test "x$NVCC" = xno || test -z "$NVCC"],
      [tl_cuda_why="nvcc not found in PATH, \$CUDA_HOME/bin, \$CUDA_PATH/bin or /usr/local/cuda/bin"; NVCC=""])
    tl_cuda_nvcc_found="$NVCC"

    dnl ---- the toolkit: the one nvcc belongs to, not merely the parent of
    dnl the directory where an nvcc was found (a wrapper script or a link
    dnl elsewhere on PATH): --with-cuda=PREFIX, what nvcc --dryrun says
    dnl (TOP=), $CUDA_HOME, $CUDA_PATH, nvcc's own directory; the first
    dnl that has cuda_runtime.h (m4/tl_cuda_prefix.sh, tests/cuda_prefix.sh) ----
    tl_cuda_incdir=""
    tl_cuda_libdir=""
    AS_IF([test -n "$NVCC"], [
      AC_MSG_CHECKING([for the CUDA toolkit of $NVCC])
      AS_IF([tl_cuda_found=`$SHELL "$srcdir/m4/tl_cuda_prefix.sh" "$NVCC" "$tl_cuda_prefix" 2>&AS_MESSAGE_LOG_FD`], [
        tl_cuda_prefix=`echo "$tl_cuda_found" | $SED -n 's/^prefix //p'`
        tl_cuda_incdir=`echo "$tl_cuda_found" | $SED -n 's/^include //p'`
        tl_cuda_libdir=`echo "$tl_cuda_found" | $SED -n 's/^libdir //p'`
        tl_cuda_from=`echo "$tl_cuda_found" | $SED -n 's/^from //p'`
        AC_MSG_RESULT([$tl_cuda_prefix (from $tl_cuda_from)])
      ], [
        AC_MSG_RESULT([not found])
        tl_cuda_why="$tl_cuda_found"; NVCC=""
      ])
    ])

    dnl ---- the architecture list ----
    AS_IF([test -n "$NVCC"], [
      AC_MSG_CHECKING([which GPU architectures to build for])
      tl_nvcc_archs=`$NVCC --list-gpu-arch 2>/dev/null | $SED -n 's/^compute_\([[0-9]][[0-9]]*[[a-z]]*\)$/\1/p' | tr '\n' ' '`
      AS_IF([test "x$tl_cuda_arch_given" = xyes], [
        tl_cuda_arch_list=`echo "$with_cuda_arch" | tr ',;' '  '`
        tl_cuda_arch_list=`echo $tl_cuda_arch_list`
      ], [
        dnl default: Turing, Ampere (A100, consumer), Hopper; PTX of the last covers newer GPUs
        tl_cuda_arch_list=""
        for tl_arch in 75 80 86 90; do
          AS_IF([test -z "$tl_nvcc_archs"], [tl_cuda_arch_list="$tl_cuda_arch_list $tl_arch"],
            [case " $tl_nvcc_archs " in *" $tl_arch "*) tl_cuda_arch_list="$tl_cuda_arch_list $tl_arch" ;; esac])
        done
        tl_cuda_arch_list=`echo $tl_cuda_arch_list`
      ])
      AC_MSG_RESULT([${tl_cuda_arch_list:-none}])
      NVCC_GENCODE=""
      tl_last_arch=""
      for tl_arch in $tl_cuda_arch_list; do
        case "$tl_arch" in
          native) NVCC_GENCODE="$NVCC_GENCODE -arch=native" ;;
          *[[!0-9a-z]]*|"")
            tl_cuda_why="bad --with-cuda-arch entry '$tl_arch' (expected numbers such as 80 90, or native)"
            AC_MSG_ERROR([$tl_cuda_why]) ;;
          *)
            AS_IF([test -n "$tl_nvcc_archs"], [
              case " $tl_nvcc_archs " in
                *" $tl_arch "*) ;;
                *) AC_MSG_ERROR([$NVCC does not support compute capability $tl_arch; it supports: $tl_nvcc_archs]) ;;
              esac
            ])
            NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$tl_arch,code=sm_$tl_arch"
            tl_last_arch="$tl_arch" ;;
        esac
      done
      AS_IF([test -n "$tl_last_arch"],
        [NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$tl_last_arch,code=compute_$tl_last_arch"])
      AS_IF([test -z "$NVCC_GENCODE"], [tl_cuda_why="no GPU architecture left to build for"; NVCC=""])
    ])

    dnl ---- nvcc compiles a real kernel plus a host launcher ----
    tl_cuda_ok=no
    AS_IF([test -n "$NVCC"], [
      AC_MSG_CHECKING([whether $NVCC compiles a __global__ function])
      cat > conftest_cuda.cu <<'CUEOF'
#include <cuda_runtime.h>
__global__ void tl_probe_kernel(float *p) { p@<:@threadIdx.x@:>@ = 1.0f; }
extern "C" int tl_probe(void)
{
    int n = 0;
    tl_probe_kernel<<<1, 1>>>((float *)0);
    (void)cudaGetLastError();
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : -1;
}
CUEOF
      echo "$NVCC $NVCC_GENCODE $NVCCFLAGS -c conftest_cuda.cu -o conftest_cuda.o" >&AS_MESSAGE_LOG_FD
      AS_IF([$NVCC $NVCC_GENCODE $NVCCFLAGS -c conftest_cuda.cu -o conftest_cuda.o >&AS_MESSAGE_LOG_FD 2>&1],
        [tl_cuda_ok=yes], [tl_cuda_why="$NVCC failed to compile a kernel for arch '$tl_cuda_arch_list' (see config.log)"])
      AC_MSG_RESULT([$tl_cuda_ok])
    ])

    dnl ---- the C compiler links it with libcudart (and libstdc++) ----
    AS_IF([test "x$tl_cuda_ok" = xyes], [
      CUDA_CPPFLAGS="-I$tl_cuda_incdir"
      CUDA_LDFLAGS="-L$tl_cuda_libdir -Wl,-rpath,$tl_cuda_libdir"
      AS_IF([test "x$with_cudart" = xstatic],
        [CUDA_LIBS="-lcudart_static -ldl -lrt -lpthread -lstdc++"],
        [CUDA_LIBS="-lcudart -lstdc++"])
      AC_MSG_CHECKING([whether $CC links CUDA objects with $CUDA_LIBS])
      tl_save_LDFLAGS="$LDFLAGS"; tl_save_LIBS="$LIBS"
      LDFLAGS="$LDFLAGS $CUDA_LDFLAGS"
      LIBS="conftest_cuda.o $CUDA_LIBS $LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[int tl_probe(void);]], [[return tl_probe() < -1;]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no]); tl_cuda_ok=no
         tl_cuda_why="linking with -L$tl_cuda_libdir $CUDA_LIBS failed (see config.log)"])
      LDFLAGS="$tl_save_LDFLAGS"; LIBS="$tl_save_LIBS"
    ])
    rm -f conftest_cuda.cu conftest_cuda.o

    AS_IF([test "x$tl_cuda_ok" = xyes], [
      tl_cuda_enabled=yes
      tl_cuda_summary="($NVCC; arch: $tl_cuda_arch_list; cudart: $with_cudart)"
      AC_DEFINE([TL_HAVE_CUDA], [1], [the CUDA backend is built])
    ], [
      CUDA_CPPFLAGS=""; CUDA_LDFLAGS=""; CUDA_LIBS=""; NVCC_GENCODE=""
      tl_cuda_summary="($tl_cuda_why)"
      AS_IF([test "x$tl_cuda_loud" = xyes],
        [AC_MSG_ERROR([CUDA was requested (--with-cuda=yes, a PATH or --with-cuda-arch) but it is not usable: $tl_cuda_why. Install the CUDA toolkit (nvcc, libcudart), give its prefix (--with-cuda=PREFIX or CUDA_HOME) or configure --with-cuda=no])],
        [AS_IF([test -n "$tl_cuda_nvcc_found"],
          [AC_MSG_WARN([CUDA backend not built, although $tl_cuda_nvcc_found exists: $tl_cuda_why. This is a CPU-only build (--device cuda runs on the emulated device); configure --with-cuda=PREFIX or set CUDA_HOME to build it, or --with-cuda=yes to make this an error])],
          [AC_MSG_NOTICE([CUDA backend not built: $tl_cuda_why])])])
    ])
  ])
  AC_SUBST([NVCC])
  AC_SUBST([NVCCFLAGS])
  AC_SUBST([NVCC_GENCODE])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LDFLAGS])
  AC_SUBST([CUDA_LIBS])
  AM_CONDITIONAL([HAVE_CUDA], [test "x$tl_cuda_enabled" = xyes])
])
