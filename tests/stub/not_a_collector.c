/* A shared library that is not an ITT collector: it exports no __itt_*
 * symbol. Loading it through the static part must leave every call a
 * no-op. */
int not_a_collector_marker(void) { return 42; }
