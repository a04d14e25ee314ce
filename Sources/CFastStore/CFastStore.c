#include "CFastStore.h"

_Thread_local void *_Nullable _cfaststore_tracking_context CFASTSTORE_TLS_MODEL = 0;
