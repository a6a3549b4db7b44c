/* A library maps_program dlopens and dlcloses: its function is the
 * address of a task_begin_fn inside a module that is gone at the end. */
int maps_plugin_function(int x) { return x * 21; }
