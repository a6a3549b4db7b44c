/* Context metadata bound to a counter before the collector loads: the
 * static part keeps it (the binding does not load the collector), and the
 * collector binds it when the first recording call loads it. A numeric
 * item too. Exits 0. */
#include <ittnotify.h>

int main(void) {
  __itt_domain* d = __itt_domain_create("counter_metadata");
  __itt_counter c = __itt_counter_create_v3(d, "before_load", __itt_metadata_u64);
  unsigned long long flag = 1;
  __itt_context_metadata md[3] = {{__itt_context_nameA, (void*)"Bandwidth"},
                                  {__itt_context_unitsA, (void*)"GB/s"},
                                  {__itt_context_bandwidth_flag, &flag}};
  __itt_bind_context_metadata_to_counter(c, 3, md); /* no collector yet */
  unsigned long long v = 42;
  __itt_counter_set_value_v3(c, &v); /* loads the collector */
  return 0;
}
