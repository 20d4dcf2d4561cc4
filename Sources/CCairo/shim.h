#ifndef MARBLES_CCAIRO_SHIM_H
#define MARBLES_CCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>

#endif
