/* A library symbols_program dlopens, calls and dlcloses: hidden_fn is in
 * its .symtab only (not exported, so not in .dynsym, and dladdr cannot
 * name it); the program gets its address through the one exported
 * function. */
__attribute__((visibility("hidden"), noinline)) int hidden_fn(int x) { return x * 21; }

void* symbols_plugin_hidden_fn(void) { return (void*)&hidden_fn; }
