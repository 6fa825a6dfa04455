#include "CLuaSupport.h"
int ember_lua_support_version(void) { return 1; }
