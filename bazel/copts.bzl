"""Compiler flags shared by every target of the project."""

# Project C++ code: warnings are errors.
ITTC_COPTS = [
    "-std=c++17",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-fno-omit-frame-pointer",
]

# Project C code (the static part and C test programs).
ITTC_C_COPTS = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
]
