#include <lua.h>
int ember_lua_support_version(void);
