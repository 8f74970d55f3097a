/* volk's implementation, compiled exactly once for the whole program. */
#define VOLK_IMPLEMENTATION
#include <volk.h>
