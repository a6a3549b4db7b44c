/* ittcollector: types of the legacy ITT functions (pre-3.0 API).
 *
 * No public header of this project declares the legacy functions, but the
 * static part still exports their pointer variables and lists them in its
 * function table, because Intel's static part does: a program built against
 * Intel's legacy header links against our library, and collectors written
 * for the legacy API are bound the same way. Values are Intel's.
 */
#ifndef STUB_SRC_ITT_LEGACY_TYPES_H_
#define STUB_SRC_ITT_LEGACY_TYPES_H_

typedef int __itt_state_t;

typedef enum __itt_obj_state {
  __itt_obj_state_err = 0,
  __itt_obj_state_clr = 1,
  __itt_obj_state_set = 2,
  __itt_obj_state_use = 3
} __itt_obj_state_t;

typedef enum __itt_thr_state {
  __itt_thr_state_err = 0,
  __itt_thr_state_clr = 1,
  __itt_thr_state_set = 2
} __itt_thr_state_t;

typedef enum __itt_obj_prop {
  __itt_obj_prop_watch = 1,
  __itt_obj_prop_ignore = 2,
  __itt_obj_prop_sharable = 3
} __itt_obj_prop_t;

typedef enum __itt_thr_prop { __itt_thr_prop_quiet = 1 } __itt_thr_prop_t;

typedef struct __itt_frame_t *__itt_frame;

#endif /* STUB_SRC_ITT_LEGACY_TYPES_H_ */
