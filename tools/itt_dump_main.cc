// itt-dump: reads, summarises, verifies and exports ittcollector traces.
// Everything is in tools/itt_dump/; docs/ITT_DUMP.md is the manual.

#include "tools/itt_dump/cli.h"

int main(int argc, char** argv) { return ittc::itt_dump::IttDumpMain(argc, argv); }
