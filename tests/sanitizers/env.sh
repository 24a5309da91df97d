# shellcheck shell=bash
# Sourced by scripts/test.sh (stage 2) and scripts/fuzz_campaign.sh: the run-time options of the
# ASan + UBSan build in ./build-sanitize. Also needed while building, because gtest_discover_tests
# runs the instrumented test executables to list their tests.
_tcemu_san_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ASan. Detection is on in full; the options only add checks or set where reports go:
#  detect_leaks=1                 LeakSanitizer on (the default on x86-64 Linux; said for clarity).
#                                 Known allocations kept by uninstrumented libraries are in
#                                 lsan.supp, by library, with the reason.
#  check_initialization_order=1, strict_init_order=1
#                                 static-initialisation-order bugs between translation units.
#  detect_stack_use_after_return=1
#                                 use of a returned function's stack (off by default: costs memory).
#  strict_string_checks=1         str* interceptors check the whole argument, not just what is read.
#  abort_on_error=0               exit with a status (CTest reports the failure) instead of a
#                                 core dump.
export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:strict_string_checks=1:abort_on_error=0${TCEMU_ASAN_EXTRA:+:$TCEMU_ASAN_EXTRA}"
export LSAN_OPTIONS="suppressions=$_tcemu_san_dir/lsan.supp:print_suppressions=0"
# UBSan: the build has -fno-sanitize-recover=undefined (the first report stops the process);
# halt_on_error=1 says the same at run time, print_stacktrace=1 makes the report point at the caller.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$_tcemu_san_dir/ubsan.supp"
# Symbolised reports need llvm-symbolizer; Debian's llvm-14 has it outside PATH.
if ! command -v llvm-symbolizer >/dev/null 2>&1 && [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
unset _tcemu_san_dir
