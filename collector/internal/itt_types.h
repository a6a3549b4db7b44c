// The ITT types the collector implements, without the call macros: the
// collector defines the functions those macros would call.

#ifndef COLLECTOR_INTERNAL_ITT_TYPES_H_
#define COLLECTOR_INTERNAL_ITT_TYPES_H_

#ifndef INTEL_NO_MACRO_BODY
#define INTEL_NO_MACRO_BODY
#endif
#ifndef INTEL_ITTNOTIFY_API_PRIVATE
#define INTEL_ITTNOTIFY_API_PRIVATE
#endif

#include <ittnotify.h>
#include <jitprofiling.h>

#include "stub/abi/itt_static_abi.h"

#endif  // COLLECTOR_INTERNAL_ITT_TYPES_H_
