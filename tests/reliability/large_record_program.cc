// Row 2: records larger than the ring, and strings longer than the limit.
// Every oversized call sits between a task_begin and a task_end, so the test
// sees that the calls around it were recorded in order.

#include <ittnotify.h>
#include <jitprofiling.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  const std::string huge(1 << 20, 'x');  // far beyond the 4096-byte string limit
  __itt_domain* domain = __itt_domain_create("reliability.large");
  __itt_string_handle* step = __itt_string_handle_create("step");
  __itt_string_handle* key = __itt_string_handle_create("key");

  // Names beyond the limit: the registry keeps a marked prefix.
  __itt_domain_create(("D" + huge).c_str());
  __itt_string_handle_create(("S" + huge).c_str());
  __itt_thread_set_name(("T" + huge).c_str());

  __itt_task_begin(domain, __itt_null, __itt_null, step);
  // A string with an explicit length and a NUL-terminated one.
  __itt_metadata_str_add(domain, __itt_null, key, huge.c_str(), huge.size());
  __itt_metadata_str_add(domain, __itt_null, key, huge.c_str(), 0);
  __itt_task_end(domain);

  // Arrays no ring can hold: counted as "record too large".
  std::vector<uint64_t> values(1 << 20, 7);
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  __itt_metadata_add(domain, __itt_null, key, __itt_metadata_u64, values.size(), values.data());
  __itt_task_end(domain);

  __itt_histogram* histogram =
      __itt_histogram_create(domain, "histogram", __itt_metadata_u64, __itt_metadata_u64);
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  __itt_histogram_submit(histogram, values.size(), values.data(), values.data());
  __itt_task_end(domain);

  std::vector<LineNumberInfo> lines(1 << 20);
  for (size_t i = 0; i < lines.size(); ++i) {
    lines[i].Offset = static_cast<unsigned int>(i);
    lines[i].LineNumber = static_cast<unsigned int>(i);
  }
  iJIT_Method_Load method = {};
  method.method_id = 1;
  method.method_name = const_cast<char*>("method");
  method.method_load_address = reinterpret_cast<void*>(0x1000);
  method.method_size = 16;
  method.line_number_size = static_cast<unsigned int>(lines.size());
  method.line_number_table = lines.data();
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &method);
  __itt_task_end(domain);

  // Records more than a header's size bits hold (kMaxRecordBytes, 512 KiB)
  // but within a quarter of a ring of 4 MiB (the default) or more: counted
  // as "record too large" too.
  std::vector<uint64_t> many(70000, 9);
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  __itt_metadata_add(domain, __itt_null, key, __itt_metadata_u64, many.size(), many.data());
  __itt_task_end(domain);
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  __itt_histogram_submit(histogram, many.size(), many.data(), many.data());
  __itt_task_end(domain);
  method.method_id = 3;
  method.line_number_size = 70000;
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &method);
  __itt_task_end(domain);

  // A JIT method whose names are too long: recorded, names marked.
  iJIT_Method_Load named = {};
  named.method_id = 2;
  named.method_name = const_cast<char*>(huge.c_str());
  named.class_file_name = const_cast<char*>(huge.c_str());
  named.source_file_name = const_cast<char*>(huge.c_str());
  named.method_load_address = reinterpret_cast<void*>(0x2000);
  named.method_size = 16;
  __itt_task_begin(domain, __itt_null, __itt_null, step);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &named);
  __itt_task_end(domain);

  std::printf("done\n");
  return 0;
}
