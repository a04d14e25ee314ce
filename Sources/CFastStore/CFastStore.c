#include "CFastStore.h"

_Thread_local void *_Nullable _cfaststore_tracking_context CFASTSTORE_TLS_MODEL = 0;

uint64_t _cfaststore_stamp_counter = 0;
uint64_t _cfaststore_node_counter = 0;
uint32_t _cfaststore_registry_counter = 0;
