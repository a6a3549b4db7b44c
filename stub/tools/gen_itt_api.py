#!/usr/bin/env python3
"""Generates the per-function parts of the ITT static part from one table.

Every ITT API function exists in four places that must agree: its prototype
and call macros in stub/include/ittnotify.h, its function-pointer variable and
first-call stub in libittnotify.a, its row in the table handed to collectors
(__itt_api_info), and the recording entry point of the test collector. This
script holds the single table and writes:

  stub/include/ittnotify_api.inc  prototypes and call macros (included by
                                  ittnotify.h, section by section)
  stub/src/itt_api_list.inc       X-macro list used by the C static part and
                                  by tests/stub

Run from the repository root after editing TABLE:
  python3 stub/tools/gen_itt_api.py
The outputs are committed; nothing runs this at build time, and
//tests/stub:generated_files_test fails when they differ from what this
script writes. --out-dir DIR writes them under DIR (same relative paths)
instead of the repository.
"""

import argparse
import os
import re
import sys

# One row per API function, grouped into header sections. Columns:
#   ret | name | parameters | collector groups | flags
# flags:
#   D    first parameter is a domain: the call macro skips the call when the
#        domain is NULL or its flags are 0
#   S    the static part implements it before and without a collector
#        (its "null" function is the static implementation, as in Intel's)
#   C    the first-call stub is hand-written in the C static part
#   P    declared only under INTEL_ITTNOTIFY_API_PRIVATE
#   L    legacy: exists in the library's table and exports, not in the header
#   V    variadic
#   =x   the collector exports it under __itt_x instead of __itt_<name>
TABLE = """
@control
void | pause | void | control,legacy | S
void | pause_scoped | __itt_collection_scope scope | control | S
void | resume | void | control,legacy | S
void | resume_scoped | __itt_collection_scope scope | control | S
void | detach | void | control,legacy |
@pt_region
__itt_pt_region | pt_region_create | const char *name | structure |
@thread
void | thread_set_name | const char *name | thread | S
void | thread_ignore | void | thread | S
int | thr_name_set | const char *name, int namelen | thread,legacy | SCL
void | thr_ignore | void | thread,legacy | SCL
@suppress
void | suppress_push | unsigned int mask | suppress |
void | suppress_pop | void | suppress |
void | suppress_mark_range | __itt_suppress_mode_t mode, unsigned int mask, void *address, size_t size | suppress |
void | suppress_clear_range | __itt_suppress_mode_t mode, unsigned int mask, void *address, size_t size | suppress |
@sync
void | sync_create | void *addr, const char *objtype, const char *objname, int attribute | sync,fsync |
void | sync_rename | void *addr, const char *name | sync,fsync |
void | sync_destroy | void *addr | sync,fsync |
void | sync_prepare | void *addr | sync |
void | sync_cancel | void *addr | sync |
void | sync_acquired | void *addr | sync |
void | sync_releasing | void *addr | sync |
@fsync
void | fsync_prepare | void *addr | fsync | =sync_prepare
void | fsync_cancel | void *addr | fsync | =sync_cancel
void | fsync_acquired | void *addr | fsync | =sync_acquired
void | fsync_releasing | void *addr | fsync | =sync_releasing
@model
void | model_site_begin | __itt_model_site *site, __itt_model_site_instance *instance, const char *name | model |
void | model_site_beginA | const char *name | model |
void | model_site_beginAL | const char *name, size_t siteNameLen | model |
void | model_site_end | __itt_model_site *site, __itt_model_site_instance *instance | model |
void | model_site_end_2 | void | model |
void | model_task_begin | __itt_model_task *task, __itt_model_task_instance *instance, const char *name | model |
void | model_task_beginA | const char *name | model |
void | model_task_beginAL | const char *name, size_t taskNameLen | model |
void | model_iteration_taskA | const char *name | model |
void | model_iteration_taskAL | const char *name, size_t taskNameLen | model |
void | model_task_end | __itt_model_task *task, __itt_model_task_instance *instance | model |
void | model_task_end_2 | void | model |
void | model_lock_acquire | void *lock | model |
void | model_lock_acquire_2 | void *lock | model |
void | model_lock_release | void *lock | model |
void | model_lock_release_2 | void *lock | model |
void | model_record_allocation | void *addr, size_t size | model |
void | model_record_deallocation | void *addr | model |
void | model_induction_uses | void *addr, size_t size | model |
void | model_reduction_uses | void *addr, size_t size | model |
void | model_observe_uses | void *addr, size_t size | model |
void | model_clear_uses | void *addr | model |
void | model_disable_push | __itt_model_disable x | model |
void | model_disable_pop | void | model |
void | model_aggregate_task | size_t x | model |
@heap
__itt_heap_function | heap_function_create | const char *name, const char *domain | heap |
void | heap_allocate_begin | __itt_heap_function h, size_t size, int initialized | heap |
void | heap_allocate_end | __itt_heap_function h, void **addr, size_t size, int initialized | heap |
void | heap_free_begin | __itt_heap_function h, void *addr | heap |
void | heap_free_end | __itt_heap_function h, void *addr | heap |
void | heap_reallocate_begin | __itt_heap_function h, void *addr, size_t new_size, int initialized | heap |
void | heap_reallocate_end | __itt_heap_function h, void *addr, void **new_addr, size_t new_size, int initialized | heap |
void | heap_internal_access_begin | void | heap |
void | heap_internal_access_end | void | heap |
void | heap_record_memory_growth_begin | void | heap |
void | heap_record_memory_growth_end | void | heap |
void | heap_reset_detection | unsigned int reset_mask | heap |
void | heap_record | unsigned int record_mask | heap |
@domain
__itt_domain* | domain_create | const char *name | structure | SC
@id
void | id_create | const __itt_domain *domain, __itt_id id | structure | D
void | id_destroy | const __itt_domain *domain, __itt_id id | structure | D
@string_handle
__itt_string_handle* | string_handle_create | const char *name | structure | SC
@timestamp
__itt_timestamp | get_timestamp | void | structure |
@region
void | region_begin | const __itt_domain *domain, __itt_id id, __itt_id parentid, __itt_string_handle *name | structure | D
void | region_end | const __itt_domain *domain, __itt_id id | structure | D
@frame
void | frame_begin_v3 | const __itt_domain *domain, __itt_id *id | structure | D
void | frame_end_v3 | const __itt_domain *domain, __itt_id *id | structure | D
void | frame_submit_v3 | const __itt_domain *domain, __itt_id *id, __itt_timestamp begin, __itt_timestamp end | structure | D
@task
void | task_group | const __itt_domain *domain, __itt_id id, __itt_id parentid, __itt_string_handle *name | structure | D
void | task_begin | const __itt_domain *domain, __itt_id taskid, __itt_id parentid, __itt_string_handle *name | structure | D
void | task_begin_fn | const __itt_domain *domain, __itt_id taskid, __itt_id parentid, void *fn | structure | D
void | task_end | const __itt_domain *domain | structure | D
void | task_begin_overlapped | const __itt_domain *domain, __itt_id taskid, __itt_id parentid, __itt_string_handle *name | structure | D
void | task_end_overlapped | const __itt_domain *domain, __itt_id taskid | structure | D
@marker
void | marker | const __itt_domain *domain, __itt_id id, __itt_string_handle *name, __itt_scope scope | structure | D
@metadata
void | formatted_metadata_add | const __itt_domain *domain, __itt_string_handle *format, ... | structure | DV
void | formatted_metadata_add_overlapped | const __itt_domain *domain, __itt_id taskid, __itt_string_handle *format, ... | structure | DV
void | metadata_add | const __itt_domain *domain, __itt_id id, __itt_string_handle *key, __itt_metadata_type type, size_t count, void *data | structure | D
void | metadata_str_add | const __itt_domain *domain, __itt_id id, __itt_string_handle *key, const char *data, size_t length | structure | D
void | metadata_add_with_scope | const __itt_domain *domain, __itt_scope scope, __itt_string_handle *key, __itt_metadata_type type, size_t count, void *data | structure | D
void | metadata_str_add_with_scope | const __itt_domain *domain, __itt_scope scope, __itt_string_handle *key, const char *data, size_t length | structure | D
@relation
void | relation_add_to_current | const __itt_domain *domain, __itt_relation relation, __itt_id tail | structure | D
void | relation_add | const __itt_domain *domain, __itt_id head, __itt_relation relation, __itt_id tail | structure | D
@clock_domain
__itt_clock_domain* | clock_domain_create | __itt_get_clock_info_fn fn, void *fn_data | structure |
void | clock_domain_reset | void | structure |
void | id_create_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id id | structure | D
void | id_destroy_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id id | structure | D
void | task_begin_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id taskid, __itt_id parentid, __itt_string_handle *name | structure | D
void | task_begin_fn_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id taskid, __itt_id parentid, void *fn | structure | D
void | task_end_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp | structure | D
@counter
__itt_counter | counter_create | const char *name, const char *domain | counter | SC
__itt_counter | counter_create_typed | const char *name, const char *domain, __itt_metadata_type type | counter | SC
void | counter_destroy | __itt_counter id | counter |
void | counter_inc | __itt_counter id | counter |
void | counter_inc_delta | __itt_counter id, unsigned long long value | counter |
void | counter_dec | __itt_counter id | counter |
void | counter_dec_delta | __itt_counter id, unsigned long long value | counter |
void | counter_inc_v3 | const __itt_domain *domain, __itt_string_handle *name | structure | D
void | counter_inc_delta_v3 | const __itt_domain *domain, __itt_string_handle *name, unsigned long long delta | structure | D
void | counter_dec_v3 | const __itt_domain *domain, __itt_string_handle *name | structure | D
void | counter_dec_delta_v3 | const __itt_domain *domain, __itt_string_handle *name, unsigned long long delta | structure | D
void | counter_set_value | __itt_counter id, void *value_ptr | counter |
void | counter_set_value_ex | __itt_counter id, __itt_clock_domain *clock_domain, unsigned long long timestamp, void *value_ptr | counter |
@clock_domain_ex
void | marker_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id id, __itt_string_handle *name, __itt_scope scope | structure | D
void | relation_add_to_current_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_relation relation, __itt_id tail | structure | D
void | relation_add_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id head, __itt_relation relation, __itt_id tail | structure | D
@track
__itt_track_group* | track_group_create | __itt_string_handle *name, __itt_track_group_type track_group_type | structure |
__itt_track* | track_create | __itt_track_group *track_group, __itt_string_handle *name, __itt_track_type track_type | structure |
void | set_track | __itt_track *track | structure |
@event
__itt_event | event_create | const char *name, int namelen | mark,legacy |
int | event_start | __itt_event event | mark,legacy |
int | event_end | __itt_event event | mark,legacy |
@arrays
int | av_save | void *data, int rank, const int *dimensions, int type, const char *filePath, int columnOrder | arrays |
@attach
void | enable_attach | void | all | SC
@module
void | module_load | void *start_addr, void *end_addr, const char *path | module |
void | module_unload | void *start_addr | module |
void | module_load_with_sections | __itt_module_object *module_obj | module | SC
void | module_unload_with_sections | __itt_module_object *module_obj | module | SC
@histogram
__itt_histogram* | histogram_create | const __itt_domain *domain, const char *name, __itt_metadata_type x_type, __itt_metadata_type y_type | structure | SC
void | histogram_submit | __itt_histogram *hist, size_t length, void *x_data, void *y_data | structure |
@counter_v3
__itt_counter | counter_create_v3 | const __itt_domain *domain, const char *name, __itt_metadata_type type | counter | SC
void | counter_set_value_v3 | __itt_counter counter, void *value_ptr | counter |
void | bind_context_metadata_to_counter | __itt_counter counter, size_t length, __itt_context_metadata *metadata | structure | SC
@private_clock_domain
void | task_begin_overlapped_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id taskid, __itt_id parentid, __itt_string_handle *name | structure | DP
void | task_end_overlapped_ex | const __itt_domain *domain, __itt_clock_domain *clock_domain, unsigned long long timestamp, __itt_id taskid | structure | DP
@private_mark
__itt_mark_type | mark_create | const char *name | mark | P
int | mark | __itt_mark_type mt, const char *parameter | mark | P
int | mark_off | __itt_mark_type mt | mark | P
int | mark_global | __itt_mark_type mt, const char *parameter | mark | P
int | mark_global_off | __itt_mark_type mt | mark | P
@private_stitch
__itt_caller | stack_caller_create | void | stitch | P
void | stack_caller_destroy | __itt_caller id | stitch | P
void | stack_callee_enter | __itt_caller id | stitch | P
void | stack_callee_leave | __itt_caller id | stitch | P
@private_version
const char* | api_version | void | all_but_legacy | P
@legacy
void | sync_set_name | void *addr, const char *objtype, const char *objname, int attribute | sync,fsync,legacy | L
int | notify_sync_name | void *p, const char *objtype, int typelen, const char *objname, int namelen, int attribute | sync,fsync,legacy | L
void | notify_sync_prepare | void *p | sync,fsync,legacy | L
void | notify_sync_cancel | void *p | sync,fsync,legacy | L
void | notify_sync_acquired | void *p | sync,fsync,legacy | L
void | notify_sync_releasing | void *p | sync,fsync,legacy | L
void | memory_read | void *addr, size_t size | legacy | L
void | memory_write | void *addr, size_t size | legacy | L
void | memory_update | void *addr, size_t size | legacy | L
__itt_state_t | state_get | void | legacy | L
__itt_state_t | state_set | __itt_state_t s | legacy | L
__itt_obj_state_t | obj_mode_set | __itt_obj_prop_t p, __itt_obj_state_t s | legacy | L
__itt_thr_state_t | thr_mode_set | __itt_thr_prop_t p, __itt_thr_state_t s | legacy | L
__itt_frame | frame_create | const char *domain | frame | L
void | frame_begin | __itt_frame frame | frame | L
void | frame_end | __itt_frame frame | frame | L
"""

GROUP_EXPR = {
    "control": "__itt_group_control",
    "legacy": "__itt_group_legacy",
    "thread": "__itt_group_thread",
    "mark": "__itt_group_mark",
    "sync": "__itt_group_sync",
    "fsync": "__itt_group_fsync",
    "model": "__itt_group_model",
    "counter": "__itt_group_counter",
    "frame": "__itt_group_frame",
    "stitch": "__itt_group_stitch",
    "heap": "__itt_group_heap",
    "structure": "__itt_group_structure",
    "suppress": "__itt_group_suppress",
    "arrays": "__itt_group_arrays",
    "module": "__itt_group_module",
    "all": "__itt_group_all",
    "all_but_legacy": "__itt_group_all & ~__itt_group_legacy",
}


class Api:
    def __init__(self, section, ret, name, params, groups, flags):
        self.section = section
        self.ret = ret
        self.name = name
        self.params = params
        self.groups = groups
        self.dll_name = name
        m = re.search(r"=(\w+)", flags)
        if m:
            self.dll_name = m.group(1)
            flags = flags.replace(m.group(0), "")
        self.flags = set(flags)
        self.void = ret == "void"

    def param_names(self):
        if self.params == "void":
            return []
        names = []
        for p in self.params.split(","):
            p = p.strip()
            if p == "...":
                continue
            names.append(re.search(r"(\w+)$", p).group(1))
        return names

    def group_expr(self):
        exprs = [GROUP_EXPR[g] for g in self.groups.split(",")]
        return " | ".join(exprs)


def parse():
    apis = []
    section = None
    for line in TABLE.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("@"):
            section = line[1:]
            continue
        cols = [c.strip() for c in line.split("|")]
        while len(cols) < 5:
            cols.append("")
        apis.append(Api(section, *cols))
    return apis


def header_block(section, apis):
    """Prototypes and call macros for one header section."""
    out = []
    out.append("#ifdef ITTC_API_SECTION_%s" % section.upper())
    for a in apis:
        out.append("%s ITTAPI __itt_%s(%s);" % (a.ret, a.name, a.params))
    out.append("#if !defined(INTEL_NO_MACRO_BODY) && !defined(INTEL_NO_ITTNOTIFY_API)")
    for a in apis:
        kind = "ITT_STUBV" if a.void else "ITT_STUB"
        out.append("%s(ITTAPI, %s, %s, (%s))" % (kind, a.ret, a.name, a.params))
    for a in apis:
        names = a.param_names()
        if "D" in a.flags:
            rest = names[1:]
            if "V" in a.flags:
                macro = "ITTNOTIFY_VOID_D%d_VA" % (len(rest) + 1)
                args = ",".join(["d"] + ["x%d" % i for i in range(len(rest))])
                out.append("#define __itt_%s(%s, ...) %s(%s,%s,__VA_ARGS__)" %
                           (a.name, args, macro, a.name, args))
            else:
                macro = ("ITTNOTIFY_VOID_D%d" if a.void else
                         "ITTNOTIFY_DATA_D%d") % len(rest)
                args = ",".join(["d"] + ["x%d" % i for i in range(len(rest))])
                out.append("#define __itt_%s(%s) %s(%s,%s)" %
                           (a.name, args, macro, a.name, args))
        else:
            macro = "ITTNOTIFY_VOID" if a.void else "ITTNOTIFY_DATA"
            out.append("#define __itt_%s %s(%s)" % (a.name, macro, a.name))
        out.append("#define __itt_%s_ptr ITTNOTIFY_NAME(%s)" % (a.name, a.name))
    out.append("#elif !defined(INTEL_NO_MACRO_BODY)")
    for a in apis:
        names = a.param_names()
        args = ", ".join(names)
        if "V" in a.flags:
            args += ", ..."
        body = "" if a.void else " ((%s)0)" % a.ret
        out.append("#define __itt_%s(%s)%s" % (a.name, args, body))
        out.append("#define __itt_%s_ptr 0" % a.name)
    out.append("#else")
    for a in apis:
        out.append("#define __itt_%s_ptr 0" % a.name)
    out.append("#endif")
    out.append("#undef ITTC_API_SECTION_%s" % section.upper())
    out.append("#endif")
    return "\n".join(out)


HEADER_PREAMBLE = """\
/* Generated by stub/tools/gen_itt_api.py: edit the table there, not this file.
 *
 * Prototypes and call macros of every ITT API function, one block per API
 * group. ittnotify.h defines ITTC_API_SECTION_<GROUP> and includes this file
 * once per group, right after the types that group needs, so each block is
 * expanded exactly once and in dependency order. Not for direct inclusion.
 */
"""

LIST_PREAMBLE = """\
/* Generated by stub/tools/gen_itt_api.py: edit the table there, not this file.
 *
 * X-macro list of every ITT API function the static part exports a pointer
 * for. The includer defines
 *   ITTC_API(rk, ret, name, params, args, dll_name, groups, kind)
 * where `rk` is V for functions returning void and D for the others, and
 * `kind` is one of
 *   ITTC_KIND_GENERIC  first-call stub generated from this row; null
 *                      function is NULL
 *   ITTC_KIND_STATIC   first-call stub generated; the static part keeps it
 *                      as the null function (works without a collector)
 *   ITTC_KIND_CUSTOM   first-call stub hand-written; also the null function
 * and optionally, with the same arguments (each defaults to ITTC_API):
 *   ITTC_API_VA      the variadic functions
 *   ITTC_API_LEGACY  the legacy rows, which no public header declares
 *   ITTC_API_ALIAS   rows whose collector symbol is another row's
 *                    (dll_name != name: fsync_* are bound to __itt_sync_*)
 */
#ifndef ITTC_API_VA
#define ITTC_API_VA ITTC_API
#define ITTC_API_VA_DEFAULTED_
#endif
#ifndef ITTC_API_LEGACY
#define ITTC_API_LEGACY ITTC_API
#define ITTC_API_LEGACY_DEFAULTED_
#endif
#ifndef ITTC_API_ALIAS
#define ITTC_API_ALIAS ITTC_API
#define ITTC_API_ALIAS_DEFAULTED_
#endif
"""

LIST_EPILOGUE = """\
#ifdef ITTC_API_VA_DEFAULTED_
#undef ITTC_API_VA
#undef ITTC_API_VA_DEFAULTED_
#endif
#ifdef ITTC_API_LEGACY_DEFAULTED_
#undef ITTC_API_LEGACY
#undef ITTC_API_LEGACY_DEFAULTED_
#endif
#ifdef ITTC_API_ALIAS_DEFAULTED_
#undef ITTC_API_ALIAS
#undef ITTC_API_ALIAS_DEFAULTED_
#endif
"""


def list_row(a):
    kind = "ITTC_KIND_GENERIC"
    if "C" in a.flags:
        kind = "ITTC_KIND_CUSTOM"
    elif "S" in a.flags:
        kind = "ITTC_KIND_STATIC"
    macro = "ITTC_API"
    if "V" in a.flags:
        macro = "ITTC_API_VA"
    elif "L" in a.flags:
        macro = "ITTC_API_LEGACY"
    elif a.dll_name != a.name:
        macro = "ITTC_API_ALIAS"
    args = "(" + ", ".join(a.param_names()) + ")"
    return "%s(%s, %s, %s, (%s), %s, %s, (%s), %s)" % (
        macro, "V" if a.void else "D", a.ret, a.name, a.params, args, a.dll_name, a.group_expr(), kind)


OUTPUTS = ("stub/include/ittnotify_api.inc", "stub/src/itt_api_list.inc")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", help="write the outputs under this directory")
    options = parser.parse_args()
    root = options.out_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    for path in OUTPUTS:
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    apis = parse()
    sections = []
    for a in apis:
        if a.section not in sections:
            sections.append(a.section)
    blocks = []
    for s in sections:
        members = [a for a in apis if a.section == s and "L" not in a.flags]
        if members:
            blocks.append(header_block(s, members))
    with open(os.path.join(root, OUTPUTS[0]), "w") as f:
        f.write(HEADER_PREAMBLE)
        f.write("\n\n".join(blocks))
        f.write("\n")
    with open(os.path.join(root, OUTPUTS[1]), "w") as f:
        f.write(LIST_PREAMBLE)
        for a in apis:
            f.write(list_row(a) + "\n")
        f.write(LIST_EPILOGUE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
