# Classifies one sanitizer / libFuzzer report (the log of a fuzz run that stopped) as
#   project  a bug in tcemu's code (or the harness): the run fails;
#   hdf5     a memory error, crash or hang inside the (uninstrumented) HDF5 library on a corrupt
#            file, in memory HDF5 allocated: recorded, and the run goes on (tests/fuzz/run_fuzz.sh);
#   unknown  anything else (an RSS limit without a stack, an unreadable log): the run fails.
# Rules: LeakSanitizer reports are always `project` (HDF5's known leaks are suppressed by function in
# tests/sanitizers/lsan.supp; any other leak may be tcemu's, e.g. a variable-length string HDF5
# allocated that tcemu did not free). Otherwise the first frame of the report's stack (innermost
# first) that is either in libhdf5 or in a source file of the project decides; and when ASan says
# where the accessed memory was allocated, memory allocated by project code makes it `project` (an
# HDF5 copy into a tcemu buffer that is too small is tcemu's bug).
# usage: awk -v src=SOURCE_DIR -f triage.awk LOG   -> prints "<class> <description>"
function frame_class(line) {
  if (line ~ /libhdf5/) return "hdf5"
  if (index(line, src "/core/") || index(line, src "/apps/") || index(line, src "/tests/")) return "project"
  return ""
}
function fname(line,   i, f) {
  # "    #3 0x7f.. in H5O__msg_iterate_real (/lib/...)" -> H5O__msg_iterate_real;
  # "    #11 0x55.. in tcemu::app::io::Array<float> tcemu::app::io::Reader::read<float>(std::...) /work/..." ->
  # tcemu::app::io::Array<float> tcemu::app::io::Reader::read<float>; unsymbolised frames -> "?"
  i = index(line, " in ")
  if (!i) return "?"
  f = substr(line, i + 4)
  if ((i = index(f, " /"))) f = substr(f, 1, i - 1)
  if ((i = index(f, " (/"))) f = substr(f, 1, i - 1)
  if ((i = index(f, "("))) f = substr(f, 1, i - 1)
  return f
}
# The last report in the log is the one that stopped libFuzzer: an earlier one can come from a child
# process (core's Reader probes a file in a forked child, which may crash inside HDF5 and print its
# own report before the parent turns that into a clean IoError).
/ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer|UndefinedBehaviorSanitizer)|runtime error:/ {
  first = ""; where = ""; alloc = ""
  kind = $0
  sub(/^.*ERROR: /, "", kind)
  sub(/ on address.*/, "", kind)
  sub(/ \(pc .*/, "", kind)
  section = "stack"
  next
}
!kind { next }
/allocated by thread|freed by thread|previously allocated/ { section = "alloc"; next }
/^ *#[0-9]+ / {
  c = frame_class($0)
  if (section == "stack" && c != "" && first == "") first = c
  if (section == "stack" && c != "" && c == first && where == "" && fname($0) != "?") where = fname($0)
  if (section == "alloc" && c != "" && alloc == "") { alloc = c }
  next
}
END {
  if (!kind) { print "unknown no sanitizer or libFuzzer report in the log"; exit }
  cls = first
  if (kind ~ /LeakSanitizer/) cls = "project"
  if (alloc == "project") cls = "project"
  if (cls == "") cls = "unknown"
  printf "%s %s in %s\n", cls, kind, (where == "" ? "?" : where)
}
