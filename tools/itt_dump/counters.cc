#include "tools/itt_dump/counters.h"

#include "tools/itt_dump/values.h"

namespace ittc {
namespace itt_dump {

using format::EventKind;

bool DecodeCounterChange(const format::Event& e, CounterChange* c) {
  c->set = false;
  c->b = 0;
  switch (e.kind) {
    case EventKind::kCounterInc:
    case EventKind::kCounterDec:
      c->key_kind = 1;
      c->a = e.u(0);
      c->value = e.kind == EventKind::kCounterInc ? 1 : -1;
      return true;
    case EventKind::kCounterIncDelta:
    case EventKind::kCounterDecDelta:
      c->key_kind = 1;
      c->a = e.u(0);
      c->value = static_cast<long double>(e.u(1));
      if (e.kind == EventKind::kCounterDecDelta) c->value = -c->value;
      return true;
    case EventKind::kCounterIncV3:
    case EventKind::kCounterDecV3:
      c->key_kind = 2;
      c->a = e.u(0);
      c->b = e.u(1);
      c->value = e.kind == EventKind::kCounterIncV3 ? 1 : -1;
      return true;
    case EventKind::kCounterIncDeltaV3:
    case EventKind::kCounterDecDeltaV3:
      c->key_kind = 2;
      c->a = e.u(0);
      c->b = e.u(1);
      c->value = static_cast<long double>(e.u(2));
      if (e.kind == EventKind::kCounterDecDeltaV3) c->value = -c->value;
      return true;
    case EventKind::kCounterSetValue:
    case EventKind::kCounterSetValueV3:
      c->key_kind = 1;
      c->a = e.u(0);
      c->set = true;
      c->value = CounterValue(e.u(1), e.u(2));
      return true;
    case EventKind::kCounterSetValueEx:
      c->key_kind = 1;
      c->a = e.u(0);
      c->set = true;
      c->value = CounterValue(e.u(4), e.u(5));
      return true;
    default:
      return false;
  }
}

}  // namespace itt_dump
}  // namespace ittc
