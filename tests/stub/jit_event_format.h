// Renders a JIT profiling event (type and the structure it points to) as one
// line, field by field. Shared by the recording JIT agent and the tests, so
// that a test can render the event it sent and compare.
#ifndef TESTS_STUB_JIT_EVENT_FORMAT_H_
#define TESTS_STUB_JIT_EVENT_FORMAT_H_

#include <jitprofiling.h>

#include <string>

#include "tests/stub/test_collector.h"

namespace ittc::testing {

inline std::string FormatLines(unsigned int count, const LineNumberInfo *t) {
  std::string s = "[";
  for (unsigned int i = 0; t != nullptr && i < count; ++i) {
    s += FormatArg(t[i].Offset) + ":" + FormatArg(t[i].LineNumber) + ";";
  }
  return s + "]";
}

inline std::string FormatJitEvent(unsigned int type, const void *data) {
  std::string s = "event " + FormatArg(type) + " " + FormatArg(data) + " ";
  switch (type) {
    case iJVM_EVENT_TYPE_SHUTDOWN:
      return s + "shutdown";
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
    case iJVM_EVENT_TYPE_METHOD_UPDATE:
    case iJVM_EVENT_TYPE_METHOD_UNLOAD_START: {
      const auto *m = static_cast<const iJIT_Method_Load *>(data);
      return s +
             JoinArgs(m->method_id, m->method_name, m->method_load_address, m->method_size,
                      m->line_number_size) +
             " " + FormatLines(m->line_number_size, m->line_number_table) + " " +
             JoinArgs(m->class_id, m->class_file_name, m->source_file_name);
    }
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2: {
      const auto *m = static_cast<const iJIT_Method_Load_V2 *>(data);
      return s +
             JoinArgs(m->method_id, m->method_name, m->method_load_address, m->method_size,
                      m->line_number_size) +
             " " + FormatLines(m->line_number_size, m->line_number_table) + " " +
             JoinArgs(m->class_file_name, m->source_file_name, m->module_name);
    }
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3: {
      const auto *m = static_cast<const iJIT_Method_Load_V3 *>(data);
      return s +
             JoinArgs(m->method_id, m->method_name, m->method_load_address, m->method_size,
                      m->line_number_size) +
             " " + FormatLines(m->line_number_size, m->line_number_table) + " " +
             JoinArgs(m->class_file_name, m->source_file_name, m->module_name, m->module_arch);
    }
    case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED: {
      const auto *m = static_cast<const iJIT_Method_Inline_Load *>(data);
      return s +
             JoinArgs(m->method_id, m->parent_method_id, m->method_name, m->method_load_address,
                      m->method_size, m->line_number_size) +
             " " + FormatLines(m->line_number_size, m->line_number_table) + " " +
             JoinArgs(m->class_file_name, m->source_file_name);
    }
    case iJVM_EVENT_TYPE_METHOD_UPDATE_V2: {
      const auto *u = static_cast<const iJIT_Method_Update *>(data);
      return s + JoinArgs(u->load_address, u->size, u->type, u->data_format);
    }
    default:
      return s + "unknown";
  }
}

}  // namespace ittc::testing

#endif  // TESTS_STUB_JIT_EVENT_FORMAT_H_
