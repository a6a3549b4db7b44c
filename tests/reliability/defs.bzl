"""One fault-matrix row: a program linked with our static part, and the test
that runs it under the collector."""

load("//bazel:copts.bzl", "ITTC_COPTS")

def fault_test(name, program_copts = [], program_deps = [], program_linkopts = [], data = [], test_deps = [], flushers = None, **kwargs):
    """`<name>_program.cc` built against the stub; `<name>_test.cc` runs it.

    With `flushers`, a second test `<name>_flushers_test` runs the same
    with ITTC_FLUSHERS=<flushers> (the programs inherit the variable):
    what the row checks holds with several flushers sharing the file.

    Args:
      name: the row's short name.
      program_copts: extra compiler flags of the program.
      program_deps: extra deps of the program (e.g. TBB).
      program_linkopts: extra link flags of the program.
      data: extra runfiles of the test.
      test_deps: extra deps of the test.
      flushers: a flusher count for the second test, or None.
      **kwargs: passed to the cc_test (size, tags, ...).
    """
    native.cc_binary(
        name = name + "_program",
        testonly = True,
        srcs = [name + "_program.cc"],
        copts = ITTC_COPTS + program_copts,
        linkopts = ["-pthread"] + program_linkopts,
        deps = ["//stub:ittnotify"] + program_deps,
    )
    variants = {"": {}}
    if flushers != None:
        variants["_flushers"] = {"ITTC_FLUSHERS": str(flushers)}
    for suffix, env in variants.items():
        native.cc_test(
            name = name + suffix + "_test",
            srcs = [name + "_test.cc"],
            copts = ITTC_COPTS,
            data = [
                ":" + name + "_program",
                "//collector:libittcollector.so",
            ] + data,
            env = env,
            deps = [
                ":fault_util",
                "@system//:gtest_main",
            ] + test_deps,
            **kwargs
        )
