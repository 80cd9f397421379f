/* The version and the libraries aptop was built with and runs with (`aptop --version`). */
#ifndef APTOP_UI_VERSION_H
#define APTOP_UI_VERSION_H
#include <stdio.h>

void version_print(FILE *out);

#endif
